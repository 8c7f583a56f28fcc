//go:build unix

// Package cputime reads the CPU time the process has used, for
// benchmarks that report CPU beside wall time on a machine whose other
// tenants stretch the wall clock.
package cputime

import (
	"syscall"
	"time"
)

// Process is the CPU time (user plus system) this process has used so
// far, every thread included: the collector's work on other cores counts
// too. ok is false where it cannot be read.
func Process() (d time.Duration, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
