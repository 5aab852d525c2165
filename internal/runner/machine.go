package runner

import (
	"os"
	"runtime"
	"strings"
	"syscall"

	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/internal/version"
)

// machine describes this host.
func machine() runfolder.Machine {
	host, _ := os.Hostname()
	m := runfolder.Machine{Hostname: host, OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), CPUModel: cpuModel()}
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) == nil {
		m.MemBytes = uint64(si.Totalram) * uint64(si.Unit)
	}
	var un syscall.Utsname
	if syscall.Uname(&un) == nil {
		m.Kernel = utsString(un.Release[:])
	}
	return m
}

// cpuModel returns the processor's name from /proc/cpuinfo ("model name",
// or "Processor"/"CPU part" lines on some ARM kernels), "" if there is
// none.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "model name", "Processor", "cpu model":
			if v = strings.Join(strings.Fields(v), " "); v != "" {
				return v
			}
		}
	}
	return ""
}

// utsString is a field of syscall.Utsname as a string: the bytes up to
// its first NUL (the field is a fixed-size array, NUL-padded).
func utsString(b []int8) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c == 0 {
			break
		}
		out = append(out, byte(c))
	}
	return string(out)
}

// versions is the software a cell runs with: kafka is the cluster's
// release as its provider reports it; the clients' and this program's
// versions are the ones built into this binary (a java cell adds its
// client's and JVM's when its record is built).
func versions(kafka string) runfolder.Versions {
	return runfolder.Versions{Kafka: kafka, Librdkafka: version.Librdkafka(), FranzGo: version.FranzGo(),
		Go: version.Go(), Chaosbench: version.Chaosbench()}
}
