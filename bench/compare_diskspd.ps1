# DiskSpd and iogauge on the same DiskSpd line and the same file, alternating (DiskSpd,
# iogauge, DiskSpd, iogauge...), on Windows. Both write DiskSpd's XML (-Rxml): the IOPS and
# mean latency of each run are read from it, and each pair's iogauge/DiskSpd ratio printed,
# with the median. Machines are noisy: read the ratios, not the absolute figures.
#
#   powershell -ExecutionPolicy Bypass -File bench\compare_diskspd.ps1 `
#       -DiskSpd C:\Tools\DiskSpd\amd64\diskspd.exe -Target D:\iogauge-test.dat
#
# -Line is the DiskSpd line without the target (default: seed 001's, 4 KiB random reads,
# 8 threads at QD8, unbuffered and write-through, 30 s); -Rounds (default 5). The target is
# created by the first DiskSpd run (-c) and removed at the end. -Iogauge defaults to this
# tree's target\release\iogauge.exe. Written for Windows PowerShell 5.1 and PowerShell 7;
# it could not be run where it was written (no Windows machine): report what it prints, or
# what goes wrong, with the issue.
param(
    [Parameter(Mandatory = $true)][string]$DiskSpd,
    [Parameter(Mandatory = $true)][string]$Target,
    [string]$Line = "-t8 -o8 -b4k -r -w0 -Suw -L -d30 -W5 -c4G",
    [int]$Rounds = 5,
    [string]$Iogauge = (Join-Path $PSScriptRoot "..\target\release\iogauge.exe")
)
$ErrorActionPreference = "Stop"

function Measure-Tool([string]$Exe, [string[]]$Prefix) {
    $args = $Prefix + @("-Rxml") + ($Line -split " ") + @($Target)
    $out = & $Exe @args
    if ($LASTEXITCODE -ne 0) { throw "$Exe exited $LASTEXITCODE" }
    [xml]$xml = ($out -join "`n")
    $seconds = [double]$xml.Results.TimeSpan.TestTimeSeconds
    $ios = 0.0; $latencySum = 0.0; $targets = 0
    foreach ($thread in $xml.Results.TimeSpan.Thread) {
        foreach ($t in $thread.Target) {
            $ios += [double]$t.IOCount
            if ($t.AverageLatencyMilliseconds) {
                $latencySum += [double]$t.AverageLatencyMilliseconds; $targets += 1
            }
        }
    }
    $latency = if ($targets -gt 0) { $latencySum / $targets } else { [double]::NaN }
    return @{ Iops = $ios / $seconds; LatencyMs = $latency }
}

$ratios = @()
"round  DiskSpd IOPS  iogauge IOPS  ratio  DiskSpd ms  iogauge ms"
for ($r = 0; $r -lt $Rounds; $r++) {
    $d = Measure-Tool $DiskSpd @()
    $i = Measure-Tool $Iogauge @("diskspd", "--allow-overwrite", "--no-save")
    $ratio = $i.Iops / $d.Iops
    $ratios += $ratio
    "{0,5}  {1,12:N0}  {2,12:N0}  {3,5:N3}  {4,10:N3}  {5,10:N3}" -f $r, $d.Iops, $i.Iops, $ratio, $d.LatencyMs, $i.LatencyMs
}
$sorted = $ratios | Sort-Object
"median iogauge/DiskSpd IOPS ratio: {0:N3}" -f $sorted[[int][math]::Floor($sorted.Count / 2)]
Remove-Item -LiteralPath $Target -ErrorAction SilentlyContinue
