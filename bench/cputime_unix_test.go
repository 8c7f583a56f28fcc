//go:build unix

package bench

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user plus system) this process has used so
// far, every thread included: the collector's work on the other core
// counts too.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
