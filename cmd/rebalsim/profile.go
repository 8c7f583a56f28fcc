package main

import (
	"fmt"
	"runtime/pprof"

	"rebalsim/internal/atomicfile"
)

// cpuProfileHelp is the help of --cpuprofile, which run, compare and sweep
// share. A sweep's profile is what cmd/rebalsim/default.pgo is made of
// (see BENCHMARKS.md, "Profile-guided optimisation").
const cpuProfileHelp = "write a CPU profile of the command to this file (for go tool pprof, or as cmd/rebalsim/default.pgo)"

// cpuProfile is a CPU profile being taken for --cpuprofile. The profile
// goes to a temporary file that stop renames into place, so that a
// profile that could not be finished is never left behind.
type cpuProfile struct {
	file *atomicfile.File
}

// startCPUProfile starts profiling the process into path. An empty path
// profiles nothing and returns a nil profile, whose stop does nothing.
func startCPUProfile(path string) (*cpuProfile, error) {
	if path == "" {
		return nil, nil
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Abort()
		return nil, fmt.Errorf("--cpuprofile %s: %w", path, err)
	}
	return &cpuProfile{file: f}, nil
}

// stop ends the profile and writes it.
func (p *cpuProfile) stop() error {
	if p == nil {
		return nil
	}
	pprof.StopCPUProfile()
	if err := p.file.Commit(); err != nil {
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	return nil
}
