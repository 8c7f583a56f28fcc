package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
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
