#!/usr/bin/env python3
"""A strict reader of DiskSpd's -Rxml: the shape DiskSpd 2.2's XmlResultParser and
Common.cpp write, element by element and attribute by attribute, in their order. Checks the
XML `xml` against iogauge's saved result `json` of the same run (the numbers the XML must
carry) and against this machine's sysfs (the ProcessorTopology). Prints key=value facts;
prints `strict: ...` and exits 1 at the first departure from DiskSpd's shape.

Usage: strict.py result.xml saved.json
"""
import json
import os
import sys
import xml.etree.ElementTree as ET

BUCKET_ATTRS = [
    "SampleMillisecond", "Read", "Write", "Total",
    "ReadMinLatencyMilliseconds", "ReadMaxLatencyMilliseconds",
    "ReadAvgLatencyMilliseconds", "ReadLatencyStdDev",
    "WriteMinLatencyMilliseconds", "WriteMaxLatencyMilliseconds",
    "WriteAvgLatencyMilliseconds", "WriteLatencyStdDev",
]
PERCENTILES = ["0"] + [str(p) for p in range(1, 100)] + [
    "99.9", "99.99", "99.999", "99.9999", "99.99999", "99.999999", "99.9999999", "100"]
SYSTEM = ["ComputerName", "Tool", "RunTime", "PowerScheme", "ProcessorTopology"]
CPU = ["Socket", "Node", "Group", "Core", "EfficiencyClass", "Id",
       "UsagePercent", "UserPercent", "KernelPercent", "IdlePercent"]
PROFILE_TIMESPAN = ["CompletionRoutines", "MeasureLatency", "CalculateIopsStdDev",
                    "DisableAffinity", "Duration", "Warmup", "Cooldown", "ThreadCount",
                    "RequestCount", "IoBucketDuration", "RandSeed"]
# Target::GetXml's order; the optional ones only where DiskSpd writes them.
PROFILE_TARGET = ["Path", "BlockSize", "BaseFileOffset", "SequentialScan", "RandomAccess",
                  "TemporaryFile", "UseLargePages", "DisableLocalCache", "DisableOSCache",
                  "WriteThrough", "MemoryMappedIo", "FlushType", "WriteBufferContent",
                  "ParallelAsyncIO", "BurstSize", "ThinkTime", "FileSize", "Random",
                  "RandomRatio", "Distribution", "StrideSize", "InterlockedSequential",
                  "ThreadStride", "MaxFileSize", "RequestCount", "WriteRatio", "Throughput",
                  "ThreadsPerFile", "IOPriority", "Weight", "ThreadTargets"]
RESULT_TARGET = ["Path", "BytesCount", "FileSize", "IOCount", "ReadBytes", "ReadCount",
                 "WriteBytes", "WriteCount", "Distribution", "AverageReadLatencyMilliseconds",
                 "ReadLatencyStdev", "AverageWriteLatencyMilliseconds", "WriteLatencyStdev",
                 "AverageLatencyMilliseconds", "LatencyStdev", "Iops"]
ALWAYS_TARGET = ["Path", "BlockSize", "BaseFileOffset", "SequentialScan", "RandomAccess",
                 "TemporaryFile", "UseLargePages", "WriteBufferContent", "ParallelAsyncIO",
                 "ThreadStride", "MaxFileSize", "RequestCount", "WriteRatio", "Throughput",
                 "ThreadsPerFile", "IOPriority", "Weight"]


def fail(why):
    print(f"strict: {why}", file=sys.stderr)
    sys.exit(1)


def tags(el):
    return [c.tag for c in el]


def in_order(got, order, what):
    """`got` is a subsequence of `order` (DiskSpd's order, optional elements left out)."""
    pos = 0
    for t in got:
        if t not in order[pos:]:
            fail(f"{what}: <{t}> out of DiskSpd's order or unknown in {got}")
        # Stay on it: an element DiskSpd writes once per item (Node, Core) may repeat.
        pos = order.index(t, pos)


def cpu_list(s):
    out = []
    for part in filter(None, s.strip().split(",")):
        a, _, b = part.partition("-")
        out.extend(range(int(a), int(b or a) + 1))
    return out


def mask(cpus):
    return hex(sum(1 << c for c in cpus))


def check_system(root):
    system = root.find("System")
    if tags(system) != SYSTEM:
        fail(f"System children {tags(system)}, DiskSpd writes {SYSTEM}")
    ps = system.find("PowerScheme")
    if list(ps.attrib) != ["Name", "Guid"]:
        fail(f"PowerScheme attributes {list(ps.attrib)}")
    topo = system.find("ProcessorTopology")
    if list(topo.attrib) != ["Heterogeneous"] or topo.get("Heterogeneous") not in ("true", "false"):
        fail(f"ProcessorTopology attributes {topo.attrib}")
    online = cpu_list(open("/sys/devices/system/cpu/online").read())
    group = topo.find("Group")
    if list(group.attrib) != ["Group", "MaximumProcessors", "ActiveProcessors", "ActiveProcessorMask"]:
        fail(f"ProcessorTopology/Group attributes {list(group.attrib)}")
    if int(group.get("ActiveProcessors")) != len(online) or group.get("ActiveProcessorMask") != mask(online):
        fail(f"Group {group.attrib}, sysfs has {len(online)} online CPUs, mask {mask(online)}")
    cores = topo.findall("Core")
    covered = sorted(c for core in cores for c in range(4096) if int(core.get("Mask"), 16) >> c & 1)
    if covered != online:
        fail(f"Cores cover CPUs {covered}, online {online}")
    for core in cores:
        if list(core.attrib) != ["Group", "Core", "Mask", "EfficiencyClass"]:
            fail(f"Core attributes {list(core.attrib)}")
    for kind in ("Node", "Socket"):
        for n in topo.findall(kind):
            if list(n.attrib) != [kind] or [list(g.attrib) for g in n] != [["Group", "Mask"]]:
                fail(f"{kind} {n.attrib} with {[g.attrib for g in n]}")
    in_order(tags(topo), ["Group", "Node", "Socket", "Core"], "ProcessorTopology")
    governor = "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor" % online[0]
    want = open(governor).read().strip() if os.path.exists(governor) else "<unknown>"
    if ps.get("Name").split(",")[0] != want and want != "<unknown>":
        fail(f"PowerScheme Name {ps.get('Name')}, cpu{online[0]}'s governor {want}")
    print(f"power_scheme={ps.get('Name')}")
    print(f"cores={len(cores)}")


def check_profile(root):
    ts = root.find("Profile/TimeSpans/TimeSpan")
    in_order(tags(ts), PROFILE_TIMESPAN + ["Affinity", "Targets"], "Profile TimeSpan")
    if tags(ts)[:len(PROFILE_TIMESPAN)] != PROFILE_TIMESPAN:
        fail(f"Profile TimeSpan starts {tags(ts)}")
    for t in ts.findall("Targets/Target"):
        got = tags(t)
        in_order(got, PROFILE_TARGET, "Profile Target")
        missing = [e for e in ALWAYS_TARGET if e not in got]
        if missing:
            fail(f"Profile Target lacks {missing}")
    print(f"disable_affinity={ts.find('DisableAffinity').text}")


def check_buckets(iops, where):
    buckets = iops.findall("Bucket")
    for b in buckets:
        if list(b.attrib) != BUCKET_ATTRS:
            fail(f"{where}: Iops/Bucket attributes {list(b.attrib)}, DiskSpd writes {BUCKET_ATTRS}")
        for d in ("Read", "Write"):
            lo, avg, hi = (float(b.get(f"{d}{k}LatencyMilliseconds")) for k in ("Min", "Avg", "Max"))
            if float(b.get(d)) > 0 and not lo <= avg <= hi:
                fail(f"{where}: bucket {b.attrib}: {d} min {lo} avg {avg} max {hi}")
        if round(float(b.get("Read")) + float(b.get("Write"))) != int(b.get("Total")):
            fail(f"{where}: Read + Write != Total in {b.attrib}")
    return buckets


def main():
    root = ET.parse(sys.argv[1]).getroot()
    saved = json.load(open(sys.argv[2]))
    check_system(root)
    check_profile(root)
    ts = root.find("TimeSpan")
    for cpu in ts.findall("CpuUtilization/CPU"):
        if tags(cpu) != CPU:
            fail(f"CPU children {tags(cpu)}, DiskSpd writes {CPU}")
    for t in ts.findall("Thread/Target"):
        in_order(tags(t), RESULT_TARGET, "Thread/Target")
        if tags(t)[:8] != RESULT_TARGET[:8]:
            fail(f"Thread/Target starts {tags(t)}")
    lat = ts.find("Latency")
    if lat is not None:
        if list(lat.attrib) != ["ReadHistoBuckets", "WriteHistoBuckets", "TotalHistoBuckets"]:
            fail(f"Latency attributes {list(lat.attrib)}")
        r, w, t = (int(lat.get(k)) for k in lat.attrib)
        if not max(r, w) <= t <= r + w:
            fail(f"TotalHistoBuckets {t} with read {r}, write {w}")
        pcts = [b.find("Percentile").text for b in lat.findall("Bucket")]
        if pcts != PERCENTILES:
            fail(f"Latency percentiles {pcts}")
        print(f"histo_buckets={r},{w},{t}")
    iops = ts.find("Iops")
    interval_ms = int(root.find("Profile/TimeSpans/TimeSpan/IoBucketDuration").text)
    if iops is not None:
        run = check_buckets(iops, "TimeSpan")
        # The run's buckets are iogauge's full intervals, as rates.
        full = [s for s in saved["time_series"]["samples"] if s["duration_ns"] == interval_ms * 1_000_000]
        for b, s in zip(run, full):
            for d in ("read", "write"):
                want = s[d]["ios"] * 1000 / interval_ms
                if abs(float(b.get(d.capitalize())) - want) > 0.5:
                    fail(f"bucket {b.get('SampleMillisecond')} {d} {b.get(d.capitalize())}, saved {want}")
        # Each target's buckets add up to the run's, and the run's extremes are theirs.
        targets = [t for t in ts.findall("Thread/Target") if t.find("Iops") is not None]
        if not targets:
            fail("no Thread/Target carries Iops with -D")
        per = [check_buckets(t.find("Iops"), t.find("Path").text) for t in targets]
        for i, b in enumerate(run):
            mine = [p[i] for p in per if i < len(p)]
            for d in ("Read", "Write"):
                if abs(sum(float(m.get(d)) for m in mine) - float(b.get(d))) > len(mine):
                    fail(f"bucket {i}: targets' {d} {[m.get(d) for m in mine]}, run's {b.get(d)}")
                active = [m for m in mine if float(m.get(d)) > 0]
                if active:
                    lo = min(float(m.get(f"{d}MinLatencyMilliseconds")) for m in active)
                    hi = max(float(m.get(f"{d}MaxLatencyMilliseconds")) for m in active)
                    if (lo, hi) != (float(b.get(f"{d}MinLatencyMilliseconds")), float(b.get(f"{d}MaxLatencyMilliseconds"))):
                        fail(f"bucket {i} {d}: targets' min/max {lo}/{hi}, run's {b.attrib}")
        print(f"iops_buckets={len(run)}")
        print(f"target_iops={len(targets)}")
        print(f"bucket_read_max_ms={max(float(b.get('ReadMaxLatencyMilliseconds')) for b in run)}")
        print(f"bucket_read_min_ms={min(float(b.get('ReadMinLatencyMilliseconds')) for b in run if float(b.get('Read')) > 0)}")
    print("strict=ok")


main()
