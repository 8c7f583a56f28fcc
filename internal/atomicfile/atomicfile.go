// Package atomicfile writes files so that a reader never sees a half-written
// one: the content goes to a temporary file in the same directory, which is
// renamed over the target only once it is complete and synced.
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// File is a file being written; Commit publishes it, Abort discards it.
type File struct {
	tmp    *os.File
	target string
	done   bool
}

// Create starts writing path.
func Create(path string) (*File, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return &File{tmp: tmp, target: path}, nil
}

// Write writes to the temporary file.
func (f *File) Write(p []byte) (int, error) { return f.tmp.Write(p) }

// Commit syncs, closes and renames the temporary file over the target.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	f.done = true
	if err := f.tmp.Sync(); err != nil {
		f.tmp.Close()
		os.Remove(f.tmp.Name())
		return fmt.Errorf("write %s: %w", f.target, err)
	}
	if err := f.tmp.Close(); err != nil {
		os.Remove(f.tmp.Name())
		return fmt.Errorf("write %s: %w", f.target, err)
	}
	if err := os.Chmod(f.tmp.Name(), 0o644); err != nil {
		os.Remove(f.tmp.Name())
		return fmt.Errorf("write %s: %w", f.target, err)
	}
	if err := os.Rename(f.tmp.Name(), f.target); err != nil {
		os.Remove(f.tmp.Name())
		return fmt.Errorf("write %s: %w", f.target, err)
	}
	return nil
}

// Abort discards the temporary file; it is a no-op after Commit.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.tmp.Close()
	os.Remove(f.tmp.Name())
}

// Write writes path atomically with what fill produces.
func Write(path string, fill func(w io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if err := fill(f); err != nil {
		f.Abort()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}
