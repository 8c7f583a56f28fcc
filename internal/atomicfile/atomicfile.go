// Package atomicfile writes files so that a reader never sees a half-written
// one: the content goes, buffered, to a temporary file in the same directory
// (so the rename cannot cross file systems), which is synced and renamed
// over the target only once it is complete.
package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// File is a file being written; Commit publishes it, Abort discards it.
type File struct {
	tmp    *os.File
	buf    *bufio.Writer
	target string
	done   bool
}

// Create starts writing path, creating its directory if needed.
func Create(path string) (*File, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return &File{tmp: tmp, buf: bufio.NewWriterSize(tmp, 1<<16), target: path}, nil
}

// Write writes to the temporary file.
func (f *File) Write(p []byte) (int, error) { return f.buf.Write(p) }

// Commit flushes, syncs, closes and renames the temporary file over the
// target, with mode 0644.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	f.done = true
	err := f.buf.Flush()
	if err == nil {
		err = f.tmp.Sync()
	}
	if err == nil {
		err = f.tmp.Chmod(0o644)
	}
	if cerr := f.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.tmp.Name(), f.target)
	}
	if err != nil {
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
