//go:build !unix

// Package cputime reads the CPU time the process has used, for
// benchmarks that report CPU beside wall time.
package cputime

import "time"

// Process is unknown here: ok is false.
func Process() (d time.Duration, ok bool) { return 0, false }
