package check

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rebalsim/rebalsim/internal/atomicfile"
)

// DefaultCorpusDir is where `rebalsim check` keeps failing seeds unless
// told otherwise.
const DefaultCorpusDir = ".rebalsim/corpus"

// CorpusFile is the file of dir that holds the failing seeds of the named
// scenario: DIR/<name>.seeds, with characters that do not belong in a file
// name replaced by '_'.
func CorpusFile(dir, scenario string) string {
	return filepath.Join(dir, safeName(scenario)+".seeds")
}

// readCorpus returns the seeds recorded for a scenario, sorted and without
// repeats; none when the file does not exist. The file holds one seed per
// line; blank lines and lines starting with # are ignored.
func readCorpus(dir, scenario string) ([]uint64, error) {
	if dir == "" {
		return nil, nil
	}
	path := CorpusFile(dir, scenario)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseCorpus(path, f)
}

func parseCorpus(path string, r io.Reader) ([]uint64, error) {
	var seeds []uint64
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		v, err := strconv.ParseUint(text, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: a corpus file holds one seed (a whole number) per line, found %q", path, line, text)
		}
		seeds = append(seeds, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	slices.Sort(seeds)
	return slices.Compact(seeds), nil
}

// addToCorpus merges seeds into the scenario's corpus file, atomically,
// and returns the seeds that were new.
func addToCorpus(dir, scenario string, seeds []uint64) ([]uint64, error) {
	have, err := readCorpus(dir, scenario)
	if err != nil {
		return nil, err
	}
	var added []uint64
	for _, s := range seeds {
		if !slices.Contains(have, s) && !slices.Contains(added, s) {
			added = append(added, s)
		}
	}
	if len(added) == 0 {
		return nil, nil
	}
	all := append(slices.Clone(have), added...)
	slices.Sort(all)
	slices.Sort(added)
	err = atomicfile.Write(CorpusFile(dir, scenario), func(w io.Writer) error {
		for _, s := range all {
			if _, err := fmt.Fprintln(w, s); err != nil {
				return err
			}
		}
		return nil
	})
	return added, err
}
