package report

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWriteAllReproducesFromResultJSON is the determinism promise end to
// end: writing a report, reading its result.json back and writing again
// gives the same bytes in every file.
func TestWriteAllReproducesFromResultJSON(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	paths, err := WriteAll(first, labReport(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range paths {
		names = append(names, filepath.Base(p))
	}
	for _, want := range []string{"result.json", "timeline.csv", "report.html", "summary.png", "summary.svg", "ownership-nextgen.png", "members-eager.svg"} {
		if !slices.Contains(names, want) {
			t.Errorf("WriteAll did not write %s (wrote %v)", want, names)
		}
	}
	if len(names) != 3+2*10 {
		t.Errorf("WriteAll wrote %d files, want 23", len(names))
	}

	f, err := os.Open(filepath.Join(first, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteAll(second, back, Options{}); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(first)
	if err != nil {
		t.Fatal(err)
	}
	// The files written, and the folder's marker.
	if len(entries) != len(names)+1 {
		t.Errorf("the directory holds %d entries, want %d and the marker: a temporary file was left behind?", len(entries), len(names))
	}
	for _, e := range entries {
		a, _ := os.ReadFile(filepath.Join(first, e.Name()))
		b, err := os.ReadFile(filepath.Join(second, e.Name()))
		if err != nil {
			t.Errorf("%s missing from the second report: %v", e.Name(), err)
			continue
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs when rendered from the saved result.json", e.Name())
		}
		if info, _ := e.Info(); info.Mode().Perm() != 0o644 {
			t.Errorf("%s has mode %v", e.Name(), info.Mode().Perm())
		}
	}
}

func TestWriteAllNoCharts(t *testing.T) {
	dir := t.TempDir()
	paths, err := WriteAll(dir, labReport(), Options{NoCharts: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 3 {
		t.Errorf("wrote %v, want result.json, timeline.csv and report.html", paths)
	}
	page, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	if strings.Contains(string(page), "<img") {
		t.Error("report.html embeds charts although NoCharts is set")
	}
}

func TestWriteFileAtomicLeavesNothingOnError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.txt")
	os.WriteFile(path, []byte("old"), 0o644)
	err := writeFileAtomic(path, func(w io.Writer) error {
		w.Write([]byte("half"))
		return errors.New("disk full")
	})
	if err == nil {
		t.Fatal("no error")
	}
	got, _ := os.ReadFile(path)
	entries, _ := os.ReadDir(dir)
	if string(got) != "old" || len(entries) != 1 {
		t.Errorf("after a failed write: %q, %d entries", got, len(entries))
	}
}

func TestWriteCharts(t *testing.T) {
	dir := t.TempDir()
	paths, err := WriteCharts(dir, labReport())
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 20 || filepath.Base(paths[0]) != "summary.png" || filepath.Base(paths[1]) != "summary.svg" {
		t.Errorf("WriteCharts wrote %v", paths)
	}
}
