package check

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rebalsim/rebalsim/scenarios"
	"github.com/rebalsim/rebalsim/sim"
)

// LibraryArg is the argument that names the whole embedded scenario
// library; "library/NAME" names one of its scenarios.
const LibraryArg = "library"

// Load reads the scenarios that args name, in order: a file; a directory,
// whose *.yaml and *.yml files are read recursively in lexical order; or,
// when no such path exists, the embedded library ("library",
// "scenarios/library") or one of its scenarios ("library/NAME" or NAME).
// Every file is read and validated before any error is returned, so one
// call reports every bad file; the error then lists each problem with its
// file:line:col. Two scenarios with one name are an error too: reports and
// the corpus are keyed by name.
func Load(args ...string) ([]*scenarios.File, error) { return LoadFor(nil, args...) }

// LoadFor is Load for scenarios that will run under models (nil: the
// built-in ones): a file may name the protocols and assignors they
// register, a custom assignor among them.
func LoadFor(models sim.Models, args ...string) ([]*scenarios.File, error) {
	loader := scenarios.Loader{Models: models}
	if len(args) == 0 {
		return nil, errors.New("no scenario files or directories given")
	}
	var out []*scenarios.File
	var errs []error
	for _, arg := range args {
		scs, err := loadArg(loader, arg)
		out = append(out, scs...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	seen := map[string]string{}
	for _, sc := range out {
		if first, dup := seen[sc.Name]; dup {
			errs = append(errs, fmt.Errorf("%s: scenario name %q is also the name of %s; names must be unique, because reports and the corpus are keyed by name", sc.Source, sc.Name, first))
			continue
		}
		seen[sc.Name] = sc.Source
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

func loadArg(loader scenarios.Loader, arg string) ([]*scenarios.File, error) {
	info, statErr := os.Stat(arg)
	if statErr != nil {
		if scs, ok, err := loadEmbedded(arg); ok {
			return scs, err
		}
		return nil, fmt.Errorf("%s: no such file or directory, and not a library scenario (run 'rebalsim check library' for the embedded library)%s", arg, libraryHint(arg))
	}
	if !info.IsDir() {
		sc, err := loader.LoadFile(arg)
		if err != nil {
			return nil, err
		}
		return []*scenarios.File{sc}, nil
	}
	var files []string
	err := filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: the directory holds no *.yaml or *.yml scenario files", arg)
	}
	slices.Sort(files)
	var out []*scenarios.File
	var errs []error
	for _, f := range files {
		sc, err := loader.LoadFile(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, sc)
	}
	return out, errors.Join(errs...)
}

// loadEmbedded resolves arg in the embedded library; ok is false when arg
// does not name it or one of its scenarios.
func loadEmbedded(arg string) (scs []*scenarios.File, ok bool, err error) {
	clean := strings.TrimSuffix(filepath.ToSlash(filepath.Clean(arg)), "/")
	if clean == LibraryArg || clean == "scenarios/"+LibraryArg {
		for _, name := range scenarios.LibraryNames() {
			sc, err := scenarios.LibraryScenario(name)
			if err != nil {
				return nil, true, err
			}
			scs = append(scs, sc)
		}
		return scs, true, nil
	}
	name := strings.TrimSuffix(strings.TrimSuffix(clean, ".yaml"), ".yml")
	name = strings.TrimPrefix(strings.TrimPrefix(name, "scenarios/"), LibraryArg+"/")
	if !slices.Contains(scenarios.LibraryNames(), name) {
		return nil, false, nil
	}
	sc, err := scenarios.LibraryScenario(name)
	if err != nil {
		return nil, true, err
	}
	return []*scenarios.File{sc}, true, nil
}

// libraryHint suggests a library scenario for a near miss of one's name.
func libraryHint(arg string) string {
	name := strings.TrimSuffix(filepath.Base(arg), filepath.Ext(arg))
	_, err := scenarios.LibrarySource(name)
	if err == nil || !strings.Contains(err.Error(), "did you mean") {
		return ""
	}
	msg := err.Error()
	return "; " + msg[strings.Index(msg, "did you mean"):strings.Index(msg, "?")+1]
}
