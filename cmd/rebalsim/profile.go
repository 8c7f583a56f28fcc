package main

import (
	"fmt"
	"runtime/pprof"

	"github.com/rebalsim/rebalsim/internal/atomicfile"
)

// cpuProfileHelp is the help of --cpuprofile, which run, compare and sweep
// share. A sweep's profile is what cmd/rebalsim/default.pgo is made of
// (see BENCHMARKS.md, "Fourth round: profile-guided optimisation").
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

// stopInto ends the profile and writes it. It is deferred by a command
// with named results: a profile that cannot be written fails a command
// that did not fail otherwise.
func (p *cpuProfile) stopInto(code *int, err *error) {
	if p == nil {
		return
	}
	pprof.StopCPUProfile()
	if cerr := p.file.Commit(); cerr != nil && *err == nil {
		*code, *err = exitBadInput, fmt.Errorf("--cpuprofile: %w", cerr)
	}
}
