#!/usr/bin/env python3
"""A port of DiskSpd's Process-DiskSpd.ps1 (github.com/microsoft/diskspd, DiskSpd 2.2):
the script DiskSpd ships to turn a folder of -Rxml results into one TSV row per result.

Faithful where it matters to a reader of iogauge's XML: the same element lookups with
PowerShell's semantics (member access on [xml] is case-insensitive, reaches child elements
and attributes alike, and enumerates over collections; a simple element reads as its text),
the same arithmetic, the same PowerShell comparisons (a string on the left compares as a
string: `$Random -gt 0` is "4096" -gt "0"), the same fields, and the same output: a header of
the fields in order, each value in quotes, tab-separated, and a .lat.tsv per result. Not
ported: the coloured console logging (write-host), which carries no data.

Usage: process_diskspd.py [xmlresultpath] [outfile]   (defaults "." and "result.tsv")
"""
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET
from decimal import Decimal


def _simple(el):
    """PowerShell reads an element with no attributes and no child elements as its text."""
    if not el.attrib and len(el) == 0:
        return el.text if el.text is not None else ""
    return el


def prop(v, name):
    """`$v.name` on [xml] nodes: children and attributes named `name`, any case, over every
    node when `v` is a collection; one result is itself, several a list, none $null."""
    nodes = v if isinstance(v, list) else [v]
    out = []
    for n in nodes:
        if not isinstance(n, ET.Element):
            continue
        for k, a in n.attrib.items():
            if k.lower() == name.lower():
                out.append(a)
        for c in n:
            if c.tag.lower() == name.lower():
                out.append(_simple(c))
    if not out:
        return None
    return out[0] if len(out) == 1 else out


def path(v, dotted):
    for name in dotted.split("."):
        v = prop(v, name)
    return v


def items(v):
    """A value as PowerShell's pipeline sees it: $null is nothing, a list its items."""
    if v is None:
        return []
    return v if isinstance(v, list) else [v]


def first(v):
    """`select -first 1`"""
    i = items(v)
    return i[0] if i else None


def num(v):
    """PowerShell's conversion of a string operand in arithmetic; $null is 0."""
    if v is None:
        return 0
    if isinstance(v, str):
        return float(v) if v.strip() else 0
    return v


def measure_sum(v, name):
    """`$v | measure -sum -Property name`: .Sum over the items that have it."""
    return sum(float(p) for p in (prop(x, name) for x in items(v)) if p is not None)


def div(a, b):
    """PowerShell's `/`: $null is 0; a division by zero would stop the script."""
    return num(a) / num(b)


def gt(left, right):
    """PowerShell's -gt: $null is less than anything; a string on the left compares as a
    string (case-insensitively), a number as a number."""
    if left is None:
        return False
    if isinstance(left, str):
        return left.lower() > str(right).lower()
    return left > num(right)


def ne(left, right):
    """PowerShell's -ne on strings: case-insensitive; $null differs from any string."""
    if left is None:
        return True
    return str(left).lower() != str(right).lower()


def text(v):
    """A value as "$v" prints it: doubles in at most 15 significant digits, booleans as
    True/False, $null empty."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, float):
        if v == int(v) and abs(v) < 1e15:
            return str(int(v))
        return "%.15g" % v
    if isinstance(v, ET.Element):
        return "System.Xml.XmlElement"
    return str(v)


# The latency percentiles the script reports ($l).
PERCENTILES = ["25", "50", "75", "90", "95", "99", "99.9", "99.99", "99.999", "100"]


def get_latency(x):
    """get-latency: each Latency bucket's Percentile, ReadMilliseconds, WriteMilliseconds."""
    lines = []
    for b in items(path(x, "Results.TimeSpan.Latency.Bucket")):
        lines.append("\t".join(text(prop(b, k)) for k in ("Percentile", "ReadMilliseconds", "WriteMilliseconds")))
    return lines


def process_result(f):
    """process-result for one file: the row as a dict, or None where it is not a result."""
    with open(f, encoding="utf-8-sig") as fh:
        content = fh.read()
    lines = content.splitlines()
    if ne(lines[0] if lines else None, "<Results>"):
        print(f"ERROR: {f} does not appear to be an DiskSpd XML result.", file=sys.stderr)
        return None
    root = ET.fromstring(content)
    x = ET.Element("#document")
    x.append(root)
    base = os.path.splitext(os.path.basename(f))[0]
    lf = re.sub(r".xml", ".lat.tsv", os.path.abspath(f), flags=re.IGNORECASE)
    if not os.path.exists(lf):
        with open(lf, "w") as out:
            out.write("\n".join(get_latency(x)) + "\n")

    system = path(x, "Results.System.ComputerName")
    t = path(x, "Results.TimeSpan.TestTimeSeconds")
    targets = path(x, "Results.TimeSpan.Thread.Target")
    ri = measure_sum(targets, "ReadCount")
    wi = measure_sum(targets, "WriteCount")
    rb = measure_sum(targets, "ReadBytes")
    wb = measure_sum(targets, "WriteBytes")
    riops, wiops, rbw, wbw = div(ri, t), div(wi, t), div(rb, t), div(wb, t)
    ricv = div(path(x, "Results.TimeSpan.Iops.ReadIopsStdDev"), riops) if riops > 0 else None
    wicv = div(path(x, "Results.TimeSpan.Iops.WriteIopsStdDev"), wiops) if wiops > 0 else None

    ptarget = "Results.Profile.TimeSpans.TimeSpan.Targets.Target."
    if gt(first(path(x, ptarget + "Random")), 0):
        pat, align = "Random", first(path(x, ptarget + "Random"))
    else:
        pat, align = "Sequential", first(path(x, ptarget + "StrideSize"))

    def hottest(name):
        v = items(path(x, "Results.TimeSpan.CpuUtilization.CPU." + name))
        return max((Decimal(s) for s in v), default=None)

    o = {
        "ResultFileName": base,
        "Path": first(path(x, "Results.TimeSpan.Thread.target.path")),
        "Affinity": ne(path(x, "Results.Profile.TimeSpans.TimeSpan.DisableAffinity"), "true"),
        "System": system,
        "TestTime": t,
        "WriteRatio": first(path(x, ptarget + "WriteRatio")),
        "Pattern": pat,
        "Align": align,
        "Threads": path(x, "Results.TimeSpan.ThreadCount"),
        "Outstanding": first(path(x, ptarget + "RequestCount")),
        "Block": first(path(x, ptarget + "BlockSize")),
        "CPU": path(x, "Results.TimeSpan.CpuUtilization.Average.UsagePercent"),
        "CPUKern": path(x, "Results.TimeSpan.CpuUtilization.Average.KernelPercent"),
        "CPUHotCore": hottest("UsagePercent"),
        "CPUHotCoreKern": hottest("KernelPercent"),
        "ReadIOPS": riops,
        "ReadIOPSCoV": ricv,
        "ReadBW": rbw,
        "ReadBytes": rb,
        "LatReadAV": path(x, "Results.TimeSpan.Latency.AverageReadMilliseconds"),
        "WriteIOPS": wiops,
        "WriteIOPSCoV": wicv,
        "WriteBW": wbw,
        "WriteBytes": wb,
        "LatWriteAV": path(x, "Results.TimeSpan.Latency.AverageWriteMilliseconds"),
        "TotIOPS": riops + wiops,
        "TotBW": rbw + wbw,
    }
    # $h[$_.Percentile] = $_ : a hashtable, so keys compare case-insensitively.
    h = {}
    for b in items(path(x, "Results.TimeSpan.Latency.Bucket")):
        h[text(prop(b, "Percentile")).lower()] = b
    for p in PERCENTILES:
        b = h.get(p.lower())
        for k, tag in (("LatRead", "ReadMilliseconds"), ("LatWrite", "WriteMilliseconds")):
            v = prop(b, tag) if b is not None else None
            o[k + p] = v if v else ""

    m = re.search(r"-wc(\d+)wicpw(\d+)vm(\d+)", base, re.IGNORECASE)
    m2 = re.search(r"-basevm(\d+)", base, re.IGNORECASE)
    if m:
        add = list(m.groups())
    elif m2:
        add = ["base", "base", m2.group(1)]
    else:
        add = ["na", "na", "na"]
    for n, a in enumerate(add, 1):
        o[f"Add{n}"] = a
    return o


def main(argv):
    xmlresultpath = argv[1] if len(argv) > 1 else "."
    outfile = argv[2] if len(argv) > 2 else "result.tsv"
    files = sorted(glob.glob(os.path.join(xmlresultpath, "*.xml")))
    scratch = process_result(files[0]) if files else None
    if scratch is None:
        print(f'ERROR: "{xmlresultpath}" may not contain DISKSPD result files', file=sys.stderr)
        return 1
    # Lexical order, as `sort` gives it (case-insensitive).
    fields = sorted(scratch, key=str.lower)
    rows = [r for r in (process_result(f) for f in files) if r is not None]
    with open(outfile, "w") as out:
        out.write("\t".join(f'"{k}"' for k in fields) + "\n")
        for row in rows:
            out.write("\t".join(f'"{text(row.get(k))}"' for k in fields) + "\n")
    if len(rows) != len(files):
        print(f'WARNING: "{xmlresultpath}" contained {len(files) - len(rows)} non-DISKSPD xml files', file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
