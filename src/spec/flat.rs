//! The flat-window stop rule, fio's `steadystate=`: stop once the last window of per-interval
//! IOPS, bandwidth or mean latency is flat enough, judged by its largest deviation from the
//! window's mean or by its least-squares slope, against a limit that is absolute or a
//! percentage of that mean. `--until-steady` asks another question (has a burst ended and the
//! level after it held?); this one is fio's, kept with fio's meaning so that fio jobs behave
//! as their authors expect.
//!
//! Here the rule is read from the words a user typed; the rule itself ([`FlatRule`]) is
//! stats/flat.rs's, which judges it.

pub use crate::stats::flat::{FlatLimit, FlatMetric, FlatRule, FlatTest};

/// fio's default criterion, used when `ss_dur` is given without `steadystate=`.
pub const FIO_DEFAULT: &str = "iops_slope:0.01%";

/// How a criterion's absolute limit is read: bandwidth as a size per second, latency as a
/// time (in nanoseconds), IOPS as a plain number. Each front end brings its own syntax.
pub struct LimitUnits<'a> {
    pub size: &'a dyn Fn(&str) -> Result<u64, String>,
    pub time_ns: &'a dyn Fn(&str) -> Result<u64, String>,
}

/// `CRITERION:LIMIT` as fio writes it: `iops:2`, `iops_slope:0.1%`, `bw:10M`, `lat:500us`.
pub fn parse_criterion(
    text: &str,
    units: &LimitUnits,
) -> Result<(FlatMetric, FlatTest, FlatLimit), String> {
    let Some((name, limit)) = text.split_once(':') else {
        return Err(format!(
            "'{text}' needs a limit after the criterion, as in iops:10% or bw_slope:1%"
        ));
    };
    let (metric, test) = match name.trim().to_ascii_lowercase().as_str() {
        "iops" => (FlatMetric::Iops, FlatTest::Deviation),
        "iops_slope" => (FlatMetric::Iops, FlatTest::Slope),
        "bw" => (FlatMetric::Bw, FlatTest::Deviation),
        "bw_slope" => (FlatMetric::Bw, FlatTest::Slope),
        "lat" => (FlatMetric::Lat, FlatTest::Deviation),
        "lat_slope" => (FlatMetric::Lat, FlatTest::Slope),
        other => {
            return Err(format!(
                "'{other}' is not a criterion: iops, iops_slope, bw, bw_slope, lat or lat_slope"
            ))
        }
    };
    let limit = limit.trim();
    let value = if let Some(pct) = limit.strip_suffix('%') {
        FlatLimit::Percent(number(pct.trim(), text)?)
    } else {
        FlatLimit::Absolute(match metric {
            FlatMetric::Iops => number(limit, text)?,
            FlatMetric::Bw => (units.size)(limit)? as f64,
            FlatMetric::Lat => (units.time_ns)(limit)? as f64,
        })
    };
    Ok((metric, test, value))
}

fn number(v: &str, whole: &str) -> Result<f64, String> {
    match v.parse::<f64>() {
        Ok(n) if n.is_finite() && n >= 0.0 => Ok(n),
        _ => Err(format!(
            "'{whole}': the limit '{v}' is not a number of 0 or more"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units() -> LimitUnits<'static> {
        LimitUnits {
            size: &|s| crate::spec::fio::parse_size(s, 1024),
            time_ns: &|s| crate::spec::fio::parse_time_ns(s, 1_000),
        }
    }

    #[test]
    fn criteria_read_as_fio_reads_them() {
        let u = units();
        let p = |t| parse_criterion(t, &u);
        assert_eq!(
            p("iops:10%").unwrap(),
            (
                FlatMetric::Iops,
                FlatTest::Deviation,
                FlatLimit::Percent(10.0)
            )
        );
        assert_eq!(
            p("bw_slope:0.5%").unwrap(),
            (FlatMetric::Bw, FlatTest::Slope, FlatLimit::Percent(0.5))
        );
        assert_eq!(
            p("iops:2.5").unwrap(),
            (
                FlatMetric::Iops,
                FlatTest::Deviation,
                FlatLimit::Absolute(2.5)
            )
        );
        assert_eq!(
            p("bw:10M").unwrap(),
            (
                FlatMetric::Bw,
                FlatTest::Deviation,
                FlatLimit::Absolute(10485760.0)
            )
        );
        // A bare latency is in microseconds, as fio's times are.
        assert_eq!(
            p("lat_slope:50").unwrap(),
            (
                FlatMetric::Lat,
                FlatTest::Slope,
                FlatLimit::Absolute(50_000.0)
            )
        );
        assert_eq!(
            p("LAT:1ms").unwrap(),
            (
                FlatMetric::Lat,
                FlatTest::Deviation,
                FlatLimit::Absolute(1e6)
            )
        );
    }

    #[test]
    fn bad_criteria_are_named() {
        let u = units();
        let e = |t| parse_criterion(t, &u).unwrap_err();
        assert!(e("iops").contains("needs a limit"), "{}", e("iops"));
        assert!(e("clat:5%").contains("'clat' is not a criterion"));
        assert!(e("iops:x%").contains("'x' is not a number"));
        assert!(e("iops:-1").contains("'-1' is not a number"));
        assert!(e("iops:nan").contains("not a number"));
        assert!(e("bw:12Q").contains("12Q"), "{}", e("bw:12Q"));
    }

    #[test]
    fn fio_text_matches_fio_json() {
        let r = FlatRule {
            metric: FlatMetric::Iops,
            test: FlatTest::Slope,
            limit: FlatLimit::Percent(0.01),
            window_ns: 30_000_000_000,
            ramp_ns: 0,
            check_ns: 1_000_000_000,
        };
        assert_eq!(r.fio_text(), "iops_slope:0.010000%");
        assert_eq!(r.points(), 30);
    }
}
