// Package atomicfile writes files so that a reader never sees a half-written
// one: the content goes, buffered, to a temporary file in the same directory
// (so the rename cannot cross file systems), which is synced and renamed
// over the target only once it is complete.
//
// A process killed while writing leaves its temporary file behind, named
// .<target>.tmp-<pid>-<random>. Every write removes from its directory
// such files whose process is gone (see removeStale), so leftovers do not
// pile up; files of a process still running are left alone.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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
	removeStale(dir)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-"+strconv.Itoa(os.Getpid())+"-*")
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

// removeStale deletes the temporary files in dir left by processes that no
// longer run. It is best effort: a file it cannot read or remove stays.
func removeStale(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if pid, ok := tempOwner(e.Name()); ok && !running(pid) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// tempOwner returns the process id in a temporary file's name
// (.<target>.tmp-<pid>-<random>), and whether name is one.
func tempOwner(name string) (int, bool) {
	if !strings.HasPrefix(name, ".") {
		return 0, false
	}
	i := strings.LastIndex(name, ".tmp-")
	if i < 0 {
		return 0, false
	}
	pidText, _, ok := strings.Cut(name[i+len(".tmp-"):], "-")
	pid, err := strconv.Atoi(pidText)
	if !ok || err != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}

// running reports whether process pid exists (signal 0 checks without
// sending anything; EPERM means it exists under another user).
func running(pid int) bool {
	if pid == os.Getpid() {
		return true
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}
