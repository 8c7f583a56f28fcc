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
	// Timeline says how result.json and timeline.csv hold the
	// per-partition and per-member history: TimelineAuto (the default,
	// "") in full up to maxFullSegments segments and summarised beyond,
	// TimelineFull always in full, TimelineSummarised always summarised.
	// The charts are drawn from the whole history either way.
	Timeline string
	// Seeds, when set, is the same scenario on several seeds (the report
	// is its first): WriteAll adds seeds.json, seeds.csv and charts with
	// the spread over the seeds, and report.html shows them.
	Seeds *Seeds
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
	saved, err := forSaving(r, opts.Timeline)
	if err != nil {
		return nil, err
	}
	if err := write("result.json", func(w io.Writer) error { return WriteJSON(w, saved) }); err != nil {
		return paths, err
	}
	if saved == r {
		if err := write("timeline.csv", func(w io.Writer) error { return TimelineCSV(w, r) }); err != nil {
			return paths, err
		}
	}
	if s := opts.Seeds; s != nil {
		if err := write("seeds.json", func(w io.Writer) error { return WriteSeedsJSON(w, s) }); err != nil {
			return paths, err
		}
		if err := write("seeds.csv", func(w io.Writer) error { return SeedsCSV(w, s) }); err != nil {
			return paths, err
		}
	}
	written, rendered, err := writeCharts(dir, opts, func() ([]Chart, error) {
		charts, err := Charts(r)
		if err != nil || opts.Seeds == nil {
			return charts, err
		}
		bands, err := SeedCharts(opts.Seeds)
		return append(charts, bands...), err
	})
	paths = append(paths, written...)
	if err != nil {
		return paths, err
	}
	if err := write("report.html", func(w io.Writer) error { return writeHTML(w, r, rendered, opts.Seeds) }); err != nil {
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
