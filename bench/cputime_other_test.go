//go:build !unix

package bench

import "time"

// processCPU is unknown here: BenchmarkScaling then reports wall time only.
func processCPU() (time.Duration, bool) { return 0, false }
