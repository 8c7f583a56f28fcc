package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestProcessGrowsWithWork: on a unix system a busy loop of at least
// 20 ms of wall time on this goroutine adds CPU time, and never takes
// any away.
func TestProcessGrowsWithWork(t *testing.T) {
	before, ok := Process()
	if !ok {
		if runtime.GOOS == "linux" || runtime.GOOS == "darwin" {
			t.Fatal("Process reported no CPU time on a unix system")
		}
		t.Skip("no CPU time on", runtime.GOOS)
	}
	x := 0
	for start := time.Now(); time.Since(start) < 20*time.Millisecond; {
		x++
	}
	after, _ := Process()
	if after <= before {
		t.Fatalf("CPU time went from %v to %v over a 20 ms busy loop (%d steps)", before, after, x)
	}
}
