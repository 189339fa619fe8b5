//! DiskSpd's names for iogauge's settings, so that messages about a DiskSpd line (refusals,
//! warnings) name the switch the user typed.

/// The DiskSpd switch a user sets for `flag`, for messages in DiskSpd's words; `None` where
/// DiskSpd has no such switch (the setting is then named as iogauge's own).
pub fn flag_name(flag: crate::spec::flag::Flag) -> Option<&'static str> {
    use crate::spec::flag::Flag::*;
    Some(match flag {
        Threads => "-t",
        QueueDepth => "-o",
        BlockSize => "-b",
        Random => "-r",
        RandomPct => "-rs",
        Distribution => "-rdpct",
        Sequential => "-s",
        Interlocked => "-si",
        WritePct => "-w",
        Duration => "-d",
        Warmup => "-W",
        Cooldown => "-C",
        Create => "-c",
        BaseOffset => "-B",
        MaxOffset => "-f",
        ThreadStart => "-T",
        Cache => "-S",
        Latency => "-L",
        Affinity => "-a",
        RateBw => "-g",
        Think => "-j",
        ThinkEvery => "-i",
        Compressible => "-Z",
        RefillBuffers => "-Zr",
        FileSet => "-F",
        SubmitBatch | CompleteBatch | BlockSizes | RandomEvery | Total | UntilSteady
        | UntilFlat | FlatWindow | FlatCheck | Interval | ThreadOffset | Engine | Delay
        | DelayStep | Sqpoll | Hipri | RateIops | RateMin | RateMinIops | RateMinWindow | Fsync
        | Fdatasync | EndFsync | ThinkSpin | FileService | OpenFiles | AllowOverwrite
        | Stonewall | WearOut | SharedFile | RankShift | RatePoisson | Backwards | Verify
        | VerifyInterval | VerifyBacklog | VerifyState | VerifyLoad | VerifyFresh | VerifyDump
        | NumaNodes | NumaMem | Zones | Zbd | MaxOpenZones | ReadBeyondWp | ZoneReset | Dedupe
        | DedupeMode | DedupeWorkingSet | DedupeGlobal | Trim | Fill | IoPrio | CmdPrio
        | LatencyTarget | LatencyWindow | LatencyPct => return None,
    })
}

/// The switch that asks for cache mode `mode`.
pub fn cache_words(mode: crate::spec::CacheMode) -> &'static str {
    use crate::spec::CacheMode::*;
    match mode {
        Buffered => "-Sb",
        Direct => "-Su",
        WriteThrough => "-Sw",
        DirectWriteThrough => "-Sh",
    }
}
