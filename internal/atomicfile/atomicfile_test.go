package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestWritePublishesOnlyCompleteFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "out.txt")
	if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "whole"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "whole" {
		t.Fatalf("read %q, %v; want \"whole\"", b, err)
	}
	// A failing writer leaves the previous file untouched and no temp file.
	err := Write(path, func(w io.Writer) error {
		io.WriteString(w, "half")
		return errors.New("boom")
	})
	if err == nil {
		t.Fatal("want the fill error")
	}
	if b, _ := os.ReadFile(path); string(b) != "whole" {
		t.Fatalf("file changed to %q after a failed write", b)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("left %d entries, want only out.txt", len(entries))
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v, want 0644", fi.Mode().Perm())
	}
}

// TestLeftoversOfDeadProcessesAreRemoved: the first write into a
// directory removes the temporary files of processes that are gone (a
// kill -9 in the middle of a write), and keeps those of live ones.
func TestLeftoversOfDeadProcessesAreRemoved(t *testing.T) {
	dir := t.TempDir()
	// A pid far above any pid_max is no running process.
	dead := filepath.Join(dir, ".result.json.tmp-2147483646-12345")
	live := filepath.Join(dir, ".result.json.tmp-"+strconv.Itoa(os.Getppid())+"-67890")
	other := filepath.Join(dir, ".hidden-notes")
	for _, p := range []string{dead, live, other} {
		if err := os.WriteFile(p, []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := Write(filepath.Join(dir, "stats.csv"), func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the dead process's temporary file is still there (%v)", err)
	}
	for _, p := range []string{live, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(p), err)
		}
	}
}

// TestFolderDetectsAHalfReplacedFolder: a folder whose write finished
// checks out; one whose marker still says writing (a re-run killed after
// replacing some of the files) is reported.
func TestFolderDetectsAHalfReplacedFolder(t *testing.T) {
	dir := t.TempDir()
	write := func(f *Folder, name, content string) {
		t.Helper()
		if err := f.Write(name, func(w io.Writer) error { _, err := io.WriteString(w, content); return err }); err != nil {
			t.Fatal(err)
		}
	}
	f, err := BeginFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	write(f, "runs.csv", "first")
	write(f, "manifest.json", "first")
	if err := CheckFolder(dir); err == nil {
		t.Error("a folder still being written checks out")
	}
	if err := f.Done(); err != nil {
		t.Fatal(err)
	}
	if err := CheckFolder(dir); err != nil {
		t.Errorf("a complete folder: %v", err)
	}
	// A second run replaces runs.csv, then is killed before manifest.json.
	g, err := BeginFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	write(g, "runs.csv", "second")
	if err := CheckFolder(dir); err == nil || !strings.Contains(err.Error(), "did not finish") {
		t.Errorf("killed second run: %v, want 'did not finish'", err)
	}
	if err := CheckFolder(t.TempDir()); err != nil {
		t.Errorf("a folder without a marker: %v", err)
	}
}
