package scenarios

import (
	"fmt"
	"strings"
)

// Error is one problem in a scenario. Parse and LoadFile say where in the
// file it is; Validate, which has no file to point into, gives the path of
// the offending field instead (for example "events[2].members[0]").
type Error struct {
	// Source is the file name given to Parse or LoadFile; for Validate it
	// is the scenario's Source, or `scenario "name"` when that is empty.
	Source string
	// Line and Column are 1-based, the column counted in characters; 0
	// when unknown. A YAML syntax error is placed where the parser saw the
	// problem; Validate has no lines at all.
	Line, Column int
	// Path locates the problem in the Scenario when Line is 0.
	Path string
	// Message is a plain sentence: the key, what was found, what is allowed.
	Message string
}

func (e *Error) Error() string {
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.Source, e.Line, e.Column, e.Message)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.Source, e.Line, e.Message)
	case e.Path != "":
		return fmt.Sprintf("%s: %s: %s", e.Source, e.Path, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Source, e.Message)
}

// ErrorList is several problems, one per line when printed. Parse returns
// them in file order. A single problem is returned as a plain *Error; in
// both cases errors.As finds the first *Error.
type ErrorList []*Error

func (l ErrorList) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap lets errors.Is and errors.As look at every problem.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// maxErrors is how many problems one call reports. A file that is wrong in
// more places than this is usually wrong in one systematic way (a bad
// indentation, a misspelt key used everywhere), and a wall of repeats hides
// the cause.
const maxErrors = 10

// asError turns collected problems into the error Parse and Validate return.
func asError(errs []*Error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	return ErrorList(errs)
}
