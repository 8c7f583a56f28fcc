//go:build !unix

package assignor

import "time"

// processCPU is unknown here: the benchmarks then report wall time only.
func processCPU() (time.Duration, bool) { return 0, false }
