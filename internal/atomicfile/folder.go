package atomicfile

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// MarkerName is the file in which a Folder records what it wrote.
const MarkerName = ".rebalsim-files.json"

// Folder writes a set of files into one directory, such as the outputs of
// a sweep, so that a directory whose files were half replaced is
// detectable. Each file is written atomically; before the first, the
// marker file says the folder is being written; after the last, it lists
// every file with its SHA-256. A run killed in between leaves the marker
// saying "writing", which CheckFolder reports.
type Folder struct {
	dir   string
	files []markedFile
}

type marker struct {
	// State is "writing" until every file is in place, then "complete".
	State string       `json:"state"`
	Files []markedFile `json:"files,omitempty"`
}

type markedFile struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// WriteFolder creates dir if needed, marks it as being written, runs fill
// and, when fill succeeds, marks the folder complete. It returns what fill
// returns (the paths written).
func WriteFolder(dir string, fill func(f *Folder) ([]string, error)) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("write %s: %w", dir, err)
	}
	f, err := BeginFolder(dir)
	if err != nil {
		return nil, err
	}
	paths, err := fill(f)
	if err != nil {
		return paths, err
	}
	return paths, f.Done()
}

// BeginFolder creates dir if needed and marks it as being written.
func BeginFolder(dir string) (*Folder, error) {
	if err := writeMarker(dir, marker{State: "writing"}); err != nil {
		return nil, err
	}
	return &Folder{dir: dir}, nil
}

// Write writes the file name of the folder atomically with what fill
// produces and records its hash.
func (f *Folder) Write(name string, fill func(w io.Writer) error) error {
	h := sha256.New()
	err := Write(filepath.Join(f.dir, name), func(w io.Writer) error { return fill(io.MultiWriter(w, h)) })
	if err != nil {
		return err
	}
	f.files = slices.DeleteFunc(f.files, func(m markedFile) bool { return m.Name == name })
	f.files = append(f.files, markedFile{Name: name, SHA256: hex.EncodeToString(h.Sum(nil))})
	return nil
}

// Done marks the folder complete, listing every file written.
func (f *Folder) Done() error {
	files := slices.Clone(f.files)
	slices.SortFunc(files, func(a, b markedFile) int { return cmp.Compare(a.Name, b.Name) })
	return writeMarker(f.dir, marker{State: "complete", Files: files})
}

func writeMarker(dir string, m marker) error {
	return Write(filepath.Join(dir, MarkerName), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(m)
	})
}

// CheckFolder reports an error when dir's marker says a write did not
// finish: the folder may mix the files of two runs. A directory without a
// marker (written by hand, or by an older rebalsim) passes, and so do
// files edited after a complete write: the hashes the marker lists are
// for whoever wants to verify them, and the reader's own checks judge the
// contents.
func CheckFolder(dir string) error {
	data, err := os.ReadFile(filepath.Join(dir, MarkerName))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var m marker
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return fmt.Errorf("%s: %s is not a rebalsim marker: %v", dir, MarkerName, err)
	}
	switch m.State {
	case "complete":
		return nil
	case "writing":
		return fmt.Errorf("%s: a run writing this folder did not finish (%s says writing): its files may mix two runs; run again into it", dir, MarkerName)
	}
	return fmt.Errorf("%s: %s has state %q, neither writing nor complete", dir, MarkerName, m.State)
}
