package report

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/rebalsim/rebalsim/internal/atomicfile"
)

// Options tune WriteAll.
type Options struct {
	// NoCharts leaves out the chart images, and the charts in report.html:
	// for quick looks at very large results, where rendering dominates.
	NoCharts bool
	// NoSVG writes PNG charts only.
	NoSVG bool
}

// WriteAll writes the whole report into dir, creating it if needed:
// result.json, timeline.csv, the charts as name.png and name.svg, and
// report.html with the charts embedded. It returns the paths written, in
// order. Each file is written to a temporary file in dir and renamed into
// place, so a reader (or a crash) never sees half a file; the charts are
// rendered once for both their files and the HTML. The folder's marker
// (atomicfile.Folder) says whether the write finished, so that a folder a
// killed re-run left half replaced is detectable.
func WriteAll(dir string, r *Report, opts Options) ([]string, error) {
	if r == nil {
		return nil, errors.New("report: no report to write")
	}
	return atomicfile.WriteFolder(dir, func(f *atomicfile.Folder) ([]string, error) { return writeAll(dir, f, r, opts) })
}

func writeAll(dir string, folder *atomicfile.Folder, r *Report, opts Options) ([]string, error) {
	var paths []string
	write := func(name string, fn func(w io.Writer) error) error {
		if err := folder.Write(name, fn); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		paths = append(paths, filepath.Join(dir, name))
		return nil
	}
	if err := write("result.json", func(w io.Writer) error { return WriteJSON(w, r) }); err != nil {
		return paths, err
	}
	if err := write("timeline.csv", func(w io.Writer) error { return TimelineCSV(w, r) }); err != nil {
		return paths, err
	}
	written, rendered, err := writeCharts(dir, opts, func() ([]Chart, error) { return Charts(r) })
	paths = append(paths, written...)
	if err != nil {
		return paths, err
	}
	if err := write("report.html", func(w io.Writer) error { return writeHTML(w, r, rendered) }); err != nil {
		return paths, err
	}
	return paths, nil
}

// writeFileAtomic writes path through a temporary file renamed into place
// (package atomicfile).
func writeFileAtomic(path string, fn func(w io.Writer) error) error {
	if err := atomicfile.Write(path, fn); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}
