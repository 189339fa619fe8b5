#!/usr/bin/env python3
"""Read DiskSpd's -Rxml output the way DiskSpd's own scripts do (XPath over TimeSpan/Thread/
Target), with the standard library only. Prints key=value lines; exits 1 on what a DiskSpd
consumer would trip over: not XML, missing elements, figures that contradict each other."""
import sys
import xml.etree.ElementTree as ET


def fail(why):
    print(f"consumer: {why}", file=sys.stderr)
    sys.exit(1)


def num(el, tag):
    x = el.find(tag)
    if x is None or x.text is None:
        fail(f"no <{tag}> in <{el.tag}>")
    return float(x.text)


root = ET.parse(sys.argv[1]).getroot()
if root.tag != "Results":
    fail(f"root is <{root.tag}>")
ts = root.find("TimeSpan")
if ts is None:
    fail("no <TimeSpan>")
secs = num(ts, "TestTimeSeconds")
threads = ts.findall("Thread")
if len(threads) != int(num(ts, "ThreadCount")):
    fail(f"{len(threads)} Thread, ThreadCount {num(ts, 'ThreadCount')}")
targets = ts.findall("Thread/Target")
if any(not t.findall("Target") for t in threads):
    fail("a Thread with no Target")
# Per target path, over all threads (a -F thread has one Target per target).
per_path = {}
for t in targets:
    path = t.find("Path").text
    per_path[path] = per_path.get(path, 0) + int(num(t, "IOCount"))
total = {"ReadBytes": 0, "WriteBytes": 0, "ReadCount": 0, "WriteCount": 0, "IOCount": 0, "BytesCount": 0}
for t in targets:
    for k in total:
        total[k] += int(num(t, k))
    if num(t, "BytesCount") != num(t, "ReadBytes") + num(t, "WriteBytes"):
        fail("BytesCount != ReadBytes + WriteBytes")
    if num(t, "IOCount") != num(t, "ReadCount") + num(t, "WriteCount"):
        fail("IOCount != ReadCount + WriteCount")
print(f"seconds={secs}")
for k, v in total.items():
    print(f"{k}={v}")
print(f"iops={total['IOCount'] / secs:.1f}")
print(f"paths={len(per_path)}")
print(f"targets_per_thread={len(targets) / len(threads)}")
print(f"smallest_path_share={min(per_path.values()) / max(1, total['IOCount']):.4f}")
avg = ts.find("CpuUtilization/Average/UsagePercent")
if avg is None:
    fail("no CpuUtilization/Average")
lat = ts.find("Latency")
if lat is not None:
    values = [float(b.find("TotalMilliseconds").text) for b in lat.findall("Bucket")]
    pcts = [float(b.find("Percentile").text) for b in lat.findall("Bucket")]
    if pcts[0] != 0 or pcts[-1] != 100 or values != sorted(values):
        fail("latency buckets not from 0 to 100, or not monotonic")
    print(f"p99_ms={values[pcts.index(99.0)]}")
    print(f"avg_ms={num(lat, 'AverageTotalMilliseconds')}")
iops = ts.find("Iops")
if iops is not None:
    buckets = iops.findall("Bucket")
    print(f"iops_buckets={len(buckets)}")
    print(f"iops_bucket_total={sum(int(b.get('Total')) for b in buckets)}")
