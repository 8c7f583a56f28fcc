package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCPUProfileIsWrittenWhole runs run and sweep with --cpuprofile and
// checks that each leaves a complete profile (gzip-compressed, as pprof
// writes them) and no temporary file beside it.
func TestCPUProfileIsWrittenWhole(t *testing.T) {
	dir := t.TempDir()
	scenario := writeScenario(t, dir, tinySweep)
	commands := map[string][]string{
		"run.pprof":   {"run", "scale-out", "--format", "json"},
		"sweep.pprof": {"sweep", scenario, "--out", filepath.Join(dir, "sweep"), "--no-charts", "--format", "none"},
	}
	for _, name := range []string{"run.pprof", "sweep.pprof"} {
		path := filepath.Join(dir, "profiles", name)
		code, _, errOut := runCLI(t, append(commands[name], "--cpuprofile", path)...)
		if strings.Contains(errOut, "already in use") {
			t.Skip("the test binary is itself being profiled")
		}
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
			t.Errorf("%s is not a gzip-compressed profile: % x", name, data[:min(len(data), 8)])
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "profiles"))
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the profiles directory holds %v, want the two profiles only", names)
	}
}

// TestCPUProfileToABadPathExitsTwo gives --cpuprofile a path under a
// regular file: the command stops before running, naming the flag.
func TestCPUProfileToABadPathExitsTwo(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "run", "scale-out", "--cpuprofile", filepath.Join(file, "cpu.pprof"))
	if code != exitBadInput || !strings.Contains(errOut, "--cpuprofile") || out != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit %d naming --cpuprofile and no run", code, out, errOut, exitBadInput)
	}
}
