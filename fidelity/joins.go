package fidelity

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"time"
)

// The group coordinator's INFO lines that say a member entered a group
// (GroupMetadataManager), with the member id they name: under the
// consumer protocol a joining member, a new static member and a static
// member's replacement; under the classic protocol a pending dynamic
// member's second JoinGroup and a new static member.
var joinPatterns = []*regexp.Regexp{
	regexp.MustCompile(`\[GroupId (\S+)\] Member (\S+) joins the consumer group`),
	regexp.MustCompile(`\[GroupId (\S+)\] Static member (\S+) with instance id \S+ joins the consumer group`),
	regexp.MustCompile(`\[GroupId (\S+)\] Static member with instance id \S+ re-joins the consumer group .*Created a new member (\S+) to replace`),
	regexp.MustCompile(`Pending dynamic member with id (\S+) joins group (\S+) in`),
	regexp.MustCompile(`Static member with groupInstanceId=\S+ and unknown member id joins group (\S+) in \S+ state\. Created a new member id (\S+)`),
}

// JoinLines reads the broker's log (its lines start with the instant,
// rebalanceLogging's format) and returns a "joined" line for every member
// of rec that the coordinator of group says entered it, stamped with the
// coordinator's instant and attributed to the process that reported the
// member id. The broker sees the joins in their true order, which the
// members' own lines, logged after a poll, do not always show.
func JoinLines(log io.Reader, group string, rec *Recording) ([]Line, error) {
	type inc struct {
		member string
		n      int
	}
	owner := map[string]inc{}
	for _, l := range rec.Lines {
		if l.Member != "" && l.MemberID != "" {
			owner[l.MemberID] = inc{l.Member, l.Incarnation}
		}
	}
	var out []Line
	s := bufio.NewScanner(log)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		text := s.Text()
		if !strings.Contains(text, group) {
			continue
		}
		for i, p := range joinPatterns {
			m := p.FindStringSubmatch(text)
			if m == nil {
				continue
			}
			g, id := m[1], m[2]
			if i == 3 {
				g, id = m[2], m[1]
			}
			o, ok := owner[id]
			if g != group || !ok {
				break
			}
			stamp, _, _ := strings.Cut(text, " ")
			at, err := time.Parse(time.RFC3339Nano, stamp)
			if err != nil {
				return nil, fmt.Errorf("broker log line %q: the instant: %w", text, err)
			}
			out = append(out, Line{T: at.UnixMicro(), Ev: "joined", MemberID: id, Member: o.member, Incarnation: o.n})
			break
		}
	}
	return out, s.Err()
}

// AddJoins adds the joined lines of the broker log at path to rec, the
// recording of group, unless it has them already or the log is missing
// (a recording made before the broker logged its group coordinator).
func AddJoins(rec *Recording, path, group string) error {
	for _, l := range rec.Lines {
		if l.Ev == "joined" {
			return nil
		}
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	defer f.Close()
	joins, err := JoinLines(f, group, rec)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	rec.Lines = append(rec.Lines, joins...)
	return nil
}
