package history

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user and system time so far. On a machine
// shared with other work, CPU time per operation is a steadier figure
// than wall time: benchmarks report both.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time since start (cpuTime's) per unit: per
// op when each op is one unit, per event when an op reads many.
func reportCPU(b *testing.B, start time.Duration, units int64, unit string) {
	b.ReportMetric(float64(cpuTime()-start)/float64(int64(b.N)*units), "cpu-ns/"+unit)
}
