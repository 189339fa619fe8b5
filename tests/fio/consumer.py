#!/usr/bin/env python3
"""Read fio JSON the way fio-plot and home-grown dashboards do, with the standard library only.

Usage: consumer.py FILE. Prints one CSV line per job and direction:
jobname,groupid,dir,rw,bs,iodepth,numjobs,iops,bw_mib,lat_mean_us,clat_p99_us
Exits 1 with a reason when the document is not what a fio consumer expects: invalid JSON,
missing keys, or figures that contradict each other.
"""
import json
import sys


def fail(why):
    print(f"consumer: {why}", file=sys.stderr)
    sys.exit(1)


def main(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        # fio consumers call json.loads on the whole output: any text around it breaks them.
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        fail(f"not valid JSON: {e}")
    if "fio version" not in doc or not isinstance(doc.get("jobs"), list):
        fail("no 'fio version' or 'jobs'")
    globals_ = doc.get("global options", {})
    for job in doc["jobs"]:
        opts = dict(globals_)
        opts.update(job["job options"])
        rw = opts.get("rw", opts.get("readwrite", "read"))
        dirs = ["mixed"] if "mixed" in job else ["read", "write"]
        for d in dirs:
            x = job[d]
            if x["total_ios"] == 0:
                continue
            secs = x["runtime"] / 1000.0
            if secs <= 0:
                fail(f"{job['jobname']} {d}: runtime {x['runtime']}")
            # The figures must agree with each other (within rounding: runtime is in whole
            # milliseconds, the rates come from the exact time).
            iops = x["total_ios"] / secs
            if abs(iops - x["iops"]) > x["iops"] * (0.01 + 0.001 / secs) + 1:
                fail(f"{job['jobname']} {d}: iops {x['iops']} but {x['total_ios']} I/Os in {secs}s")
            if abs(x["io_kbytes"] - x["io_bytes"] // 1024) > 1:
                fail(f"{job['jobname']} {d}: io_kbytes {x['io_kbytes']} vs io_bytes {x['io_bytes']}")
            if abs(x["bw"] - x["bw_bytes"] / 1024) > 1:
                fail(f"{job['jobname']} {d}: bw {x['bw']} KiB/s vs bw_bytes {x['bw_bytes']}")
            clat = x["clat_ns"]
            # N == 0: latency not measured (fio's gtod_reduce, iogauge's IOPS mode).
            if clat["N"] not in (0, x["total_ios"]):
                fail(f"{job['jobname']} {d}: clat N {clat['N']} != total_ios {x['total_ios']}")
            if clat["N"] and not clat["min"] <= clat["mean"] <= clat["max"]:
                fail(f"{job['jobname']} {d}: clat min/mean/max out of order")
            pct = clat.get("percentile", {})
            values = [v for _, v in sorted(pct.items(), key=lambda kv: float(kv[0]))]
            if values != sorted(values):
                fail(f"{job['jobname']} {d}: percentiles not monotonic")
            if "bins" in clat and sum(clat["bins"].values()) != clat["N"]:
                fail(f"{job['jobname']} {d}: json+ bins sum to {sum(clat['bins'].values())}, not N")
            p99 = pct.get("99.000000", 0) / 1000.0
            print(",".join(str(v) for v in [
                job["jobname"], job["groupid"], d, rw, opts.get("bs", "4k"),
                opts.get("iodepth", "1"), opts.get("numjobs", "1"),
                round(x["iops"], 1), round(x["bw"] / 1024.0, 2),
                round(x["lat_ns"]["mean"] / 1000.0, 2), round(p99, 2),
            ]))
        buckets = sum(job["latency_ns"].values()) + sum(job["latency_us"].values()) + sum(job["latency_ms"].values())
        if any(job[d]["clat_ns"]["N"] for d in dirs) and abs(buckets - 100.0) > 0.5:
            fail(f"{job['jobname']}: latency buckets sum to {buckets}%")


if __name__ == "__main__":
    main(sys.argv[1])
