//! The settings of a job as messages name them, in the words of the tool the job was written
//! for. A fio job's error names the fio option (`iodepth`), a DiskSpd command line's the
//! DiskSpd switch (`-o`), iogauge's own flags their long name (`--queue-depth`): each user
//! reads what they typed. Validation, the runner's notes and the warnings all name settings
//! through [`Dialect::name`] (spec/named.rs asks each dialect for its words), never with a flag
//! written into the message.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The tool whose syntax a job was written in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dialect {
    #[default]
    Iogauge,
    Fio,
    Diskspd,
    /// IOR's command line (`iogauge ior`).
    Ior,
}

impl Dialect {
    pub fn is_iogauge(&self) -> bool {
        *self == Dialect::Iogauge
    }
}

/// A setting's name, ready to print; `.0` is the word itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Named(pub &'static str, pub(super) bool);

impl fmt::Display for Named {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.1 {
            write!(f, "iogauge's {}", self.0)
        } else {
            f.write_str(self.0)
        }
    }
}

/// A setting of [`super::JobSpec`] that messages name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Flag {
    Threads,
    QueueDepth,
    SubmitBatch,
    CompleteBatch,
    BlockSize,
    BlockSizes,
    Random,
    RandomPct,
    RandomEvery,
    Distribution,
    Sequential,
    Interlocked,
    Backwards,
    Zones,
    Zbd,
    MaxOpenZones,
    ReadBeyondWp,
    ZoneReset,
    WritePct,
    Trim,
    Fill,
    Duration,
    Total,
    Warmup,
    Cooldown,
    UntilSteady,
    /// IOR's stonewalling deadline, and its wear-out.
    Stonewall,
    WearOut,
    SharedFile,
    RankShift,
    /// The flat-window rule's criterion, its window and its check interval.
    UntilFlat,
    FlatWindow,
    FlatCheck,
    Interval,
    Create,
    BaseOffset,
    MaxOffset,
    ThreadOffset,
    ThreadStart,
    Cache,
    Engine,
    Latency,
    Delay,
    DelayStep,
    Affinity,
    NumaNodes,
    NumaMem,
    Sqpoll,
    Hipri,
    IoPrio,
    CmdPrio,
    RateIops,
    RateBw,
    RatePoisson,
    RateMin,
    RateMinIops,
    RateMinWindow,
    /// The latency target's time, its window and its percentile.
    LatencyTarget,
    LatencyWindow,
    LatencyPct,
    Fsync,
    Fdatasync,
    EndFsync,
    Think,
    ThinkEvery,
    ThinkSpin,
    Compressible,
    RefillBuffers,
    Dedupe,
    DedupeMode,
    DedupeWorkingSet,
    DedupeGlobal,
    FileSet,
    FileService,
    OpenFiles,
    AllowOverwrite,
    Verify,
    VerifyInterval,
    VerifyBacklog,
    VerifyState,
    VerifyLoad,
    VerifyFresh,
    VerifyDump,
}

impl Flag {
    /// iogauge's own flag.
    pub fn native(self) -> &'static str {
        use Flag::*;
        match self {
            Threads => "--threads",
            QueueDepth => "--queue-depth",
            SubmitBatch => "--submit-batch",
            CompleteBatch => "--complete-batch",
            BlockSize => "--block-size",
            BlockSizes => "--block-sizes",
            Random => "--random",
            RandomPct => "--random-pct",
            RandomEvery => "--random-every",
            Distribution => "--distribution",
            Sequential => "--sequential",
            Interlocked => "--interlocked",
            Backwards => "--backwards",
            Zones => "--zones",
            Zbd => "--zbd",
            MaxOpenZones => "--max-open-zones",
            ReadBeyondWp => "--read-beyond-wp",
            ZoneReset => "--zone-reset",
            WritePct => "--write-pct",
            Trim => "--trim",
            Fill => "--fill",
            Duration => "--duration",
            Total => "--total",
            Warmup => "--warmup",
            Cooldown => "--cooldown",
            UntilSteady => "--until-steady",
            Stonewall => "--stonewall",
            WearOut => "--wear-out",
            SharedFile => "--shared-file",
            RankShift => "--rank-shift",
            UntilFlat | FlatWindow => "--until-flat",
            FlatCheck => "--interval",
            Interval => "--interval",
            Create => "-c",
            BaseOffset => "--base-offset",
            MaxOffset => "--max-offset",
            ThreadOffset => "--thread-offset",
            ThreadStart => "--thread-start",
            Cache => "--cache",
            Engine => "--engine",
            Latency => "-L",
            Delay => "--delay",
            DelayStep => "--delay-step",
            Affinity => "--affinity",
            NumaNodes => "--numa-nodes",
            NumaMem => "--numa-mem",
            Sqpoll => "--sqpoll",
            Hipri => "--hipri",
            IoPrio => "--ioprio",
            CmdPrio => "--cmdprio",
            RateIops => "--rate-iops",
            RateBw => "--rate-bw",
            RatePoisson => "--rate-poisson",
            RateMin => "--rate-min",
            RateMinIops => "--rate-min-iops",
            RateMinWindow => "--rate-min-window",
            LatencyTarget => "--latency-target",
            LatencyWindow => "--latency-window",
            LatencyPct => "--latency-pct",
            Fsync => "--fsync",
            Fdatasync => "--fdatasync",
            EndFsync => "--end-fsync",
            Think => "--think",
            ThinkEvery => "--think-every",
            ThinkSpin => "--think-spin",
            Compressible => "--compressible",
            RefillBuffers => "--refill-buffers",
            Dedupe => "--dedupe",
            DedupeMode => "--dedupe-mode",
            DedupeWorkingSet => "--dedupe-working-set",
            DedupeGlobal => "--dedupe-global",
            FileSet => "--file-set",
            FileService => "--file-service",
            OpenFiles => "--open-files",
            AllowOverwrite => "--allow-overwrite",
            Verify => "--verify",
            VerifyInterval => "--verify-interval",
            VerifyBacklog => "--verify-backlog",
            VerifyState => "--verify-state",
            VerifyLoad => "--verify-load",
            VerifyFresh => "--verify-fresh",
            VerifyDump => "--verify-dump",
        }
    }
}
