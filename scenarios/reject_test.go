package scenarios

import (
	"errors"
	"strings"
	"testing"
)

// base is a valid scenario of three lines; cases append from line 4 on.
const base = `duration: 2m
topics: [{name: orders, partitions: 12}]
members: [{count: 3, id: "c{i}"}]
`

// rejection is one bad input: where the error must point and what its
// message must say.
type rejection struct {
	name string
	src  string
	// at is the exact location prefix: "t.yaml:5:3", "t.yaml:2" or "t.yaml".
	at string
	// says are fragments the message must contain.
	says []string
}

// checkRejections parses each case and requires exactly one error, at the
// given location, saying the given things.
func checkRejections(t *testing.T, cases []rejection) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse("t.yaml", []byte(tc.src))
			if err == nil {
				t.Fatalf("Parse accepted the input (scenario %q); want an error at %s", s.Name, tc.at)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Fatalf("want exactly one error, got:\n%s", msg)
			}
			if !strings.HasPrefix(msg, tc.at+": ") {
				t.Errorf("error %q\nwant it at %s", msg, tc.at)
			}
			for _, frag := range tc.says {
				if !strings.Contains(msg, frag) {
					t.Errorf("error %q\nwant it to say %q", msg, frag)
				}
			}
			var e *Error
			if !errors.As(err, &e) || e.Source != "t.yaml" {
				t.Errorf("errors.As(*Error) = %v, %+v; want an *Error from t.yaml", errors.As(err, &e), e)
			}
		})
	}
}

func TestRejectDocument(t *testing.T) {
	checkRejections(t, []rejection{
		{"empty file", "", "t.yaml", []string{"the file is empty"}},
		{"only comments", "# nothing here\n", "t.yaml", []string{"the file is empty"}},
		{"empty document", "---\n", "t.yaml:1:1", []string{"the document is empty"}},
		{"null document", "~\n", "t.yaml:1:1", []string{"the document is empty"}},
		{"two documents", base + "---\nname: again\n", "t.yaml:4:1", []string{"second YAML document", "exactly one"}},
		// yaml.v3 gives lines only; the column is found on the line: the
		// second colon, just past an open flow list, the tab.
		{"syntax error on line 1", "a: b: c\n", "t.yaml:1:5", []string{"invalid YAML", "mapping values are not allowed"}},
		{"syntax error later", base + "name: [x\n", "t.yaml:5:1", []string{"invalid YAML", "did not find expected ',' or ']'", "flow sequence that starts at line 4, column 7"}},
		{"bad indentation", base + "defaults:\n  session_timeout: 10s\n   heartbeat_interval: 3s\n", "t.yaml:6:22", []string{"invalid YAML"}},
		{"tab indentation", base + "defaults:\n\tsession_timeout: 10s\n", "t.yaml:5:1", []string{"invalid YAML", "YAML does not allow tabs for indentation"}},
		{"control character", base + "name: \"a\x01b\"\n", "t.yaml:4:9", []string{"control characters are not allowed"}},
		{"invalid UTF-8", base + "name: \xff\n", "t.yaml:4:7", []string{"invalid leading UTF-8 octet"}},
		{"root is a list", "- duration: 2m\n", "t.yaml:1:1", []string{"the scenario must be a mapping", "found a list"}},
		{"root is a string", "hello\n", "t.yaml:1:1", []string{"the scenario must be a mapping", `found the string "hello"`}},
		{"missing duration", "topics: [{name: orders, partitions: 12}]\nmembers: [{id: c1}]\n", "t.yaml:1:1", []string{"no duration:", "duration: 5m"}},
		{"no topics", "duration: 2m\nmembers: [{id: c1}]\n", "t.yaml:1:1", []string{"no topics"}},
		{"no members", "duration: 2m\ntopics: [{name: orders, partitions: 12}]\n", "t.yaml:1:1", []string{"no members"}},
		{"empty members list", "duration: 2m\ntopics: [{name: orders, partitions: 12}]\nmembers: []\n", "t.yaml:3:10", []string{"no members"}},
	})
}

func TestRejectKeys(t *testing.T) {
	checkRejections(t, []rejection{
		{"unknown key in defaults", base + "defaults:\n  sesion_timeout: 45s\n", "t.yaml:5:3",
			[]string{`unknown key "sesion_timeout" in defaults; did you mean "session_timeout"?`}},
		{"Kafka's spelling of a key", base + "defaults:\n  session.timeout.ms: 45s\n", "t.yaml:5:3",
			[]string{`unknown key "session.timeout.ms" in defaults; did you mean "session_timeout"?`}},
		{"Kafka's assignor config", base + "defaults:\n  partition.assignment.strategy: [range]\n", "t.yaml:5:3",
			[]string{`did you mean "assignors"?`}},
		{"broker name in group", base + "group:\n  group.consumer.heartbeat.interval.ms: 5s\n", "t.yaml:5:3",
			[]string{`in group; did you mean "heartbeat_interval"?`}},
		{"unknown top-level key", base + "seeed: 3\n", "t.yaml:4:1", []string{`unknown key "seeed" in the scenario; did you mean "seed"?`}},
		{"unknown key without a near miss", base + "colour: blue\n", "t.yaml:4:1",
			[]string{`unknown key "colour"`, "allowed keys: name, description, seed, duration"}},
		{"unknown key in a member", "duration: 2m\ntopics: [{name: orders, partitions: 12}]\nmembers: [{id: c1, sesion_timeout: 10s}]\n", "t.yaml:3:20",
			[]string{`unknown key "sesion_timeout" in member "c1"; did you mean "session_timeout"?`}},
		{"unknown key in a topic", "duration: 2m\ntopics: [{name: orders, partitons: 12}]\nmembers: [{id: c1}]\n", "t.yaml:2:25",
			[]string{`unknown key "partitons" in topic "orders"; did you mean "partitions"?`}},
		{"unknown key in a restart", base + "events:\n  - {at: 1m, restart: {member: c1, dwn: 5s}}\n", "t.yaml:5:36",
			[]string{`unknown key "dwn" in restart; did you mean "down"?`}},
		{"unknown event kind", base + "events:\n  - {at: 1m, crsh: c1}\n", "t.yaml:5:14",
			[]string{`unknown key "crsh" in event; did you mean "crash"?`}},
		{"duplicate key", base + "seed: 1\nseed: 2\n", "t.yaml:5:1", []string{`key "seed" appears twice`, "first at line 4"}},
		{"merge key", base + "defaults:\n  <<: {session_timeout: 10s}\n", "t.yaml:5:3", []string{"merge keys (<<) are not supported"}},
		{"list as a key", base + "? [a, b]\n: 1\n", "t.yaml:4:3", []string{"keys in the scenario must be plain words", "found a list"}},
	})
}

func TestRejectValues(t *testing.T) {
	// oneMember is base with a single member entry to which cases add keys.
	const oneMember = "duration: 2m\ntopics: [{name: orders, partitions: 12}]\nmembers:\n  - {id: c1, "
	checkRejections(t, []rejection{
		{"bare number duration", base + "defaults: {session_timeout: 45}\n", "t.yaml:4:29",
			[]string{"session_timeout is a duration and needs a unit: write 45s, not 45"}},
		{"quoted bare number duration", base + "defaults: {session_timeout: \"45\"}\n", "t.yaml:4:29",
			[]string{"write 45s, not 45"}},
		{"bare number horizon", "duration: 120\ntopics: [{name: orders, partitions: 12}]\nmembers: [{id: c1}]\n", "t.yaml:1:11",
			[]string{"duration is a duration and needs a unit: write 120s, not 120"}},
		{"not a duration", base + "defaults: {max_poll_interval: soon}\n", "t.yaml:4:31",
			[]string{"max_poll_interval must be a duration such as 45s", `found the string "soon"`}},
		{"duration out of range", base + "defaults: {max_poll_interval: 9999999999h}\n", "t.yaml:4:31",
			[]string{"max_poll_interval 9999999999h is out of range: durations go up to 2562047h47m16.854775807s"}},
		{"number past float64", base + "defaults: {processing_rate: 1e400}\n", "t.yaml:4:29",
			[]string{"processing_rate 1e400 is out of range"}},
		{"whole number past float64", base + "defaults: {max_poll_records: 1e400}\n", "t.yaml:4:30",
			[]string{"max_poll_records must be a whole number from", "found 1e400, which is out of range"}},
		{"negative session timeout", base + "defaults: {session_timeout: -1s}\n", "t.yaml:4:29",
			[]string{"session_timeout must be positive, found -1s"}},
		{"zero heartbeat", base + "defaults: {heartbeat_interval: 0s}\n", "t.yaml:4:32",
			[]string{"heartbeat_interval must be positive, found 0s"}},
		{"negative backoff", base + "defaults: {retry_backoff: -100ms}\n", "t.yaml:4:27",
			[]string{"retry_backoff must not be negative, found -100ms"}},
		{"negative callback on a member", oneMember + "revoke_callback: -1s}\n", "t.yaml:4:31",
			[]string{"revoke_callback must not be negative, found -1s"}},
		{"zero horizon", "duration: 0s\ntopics: [{name: orders, partitions: 12}]\nmembers: [{id: c1}]\n", "t.yaml:1:11",
			[]string{"duration must be positive, found 0s"}},
		{"seed is negative", base + "seed: -1\n", "t.yaml:4:7",
			[]string{"seed must be a whole number from 0 to 18446744073709551615", "found the number -1"}},
		{"seed is huge", base + "seed: 1e30\n", "t.yaml:4:7", []string{"seed must be a whole number"}},
		{"seed is text", base + "seed: lucky\n", "t.yaml:4:7", []string{"seed must be a whole number", `"lucky"`}},
		{"boolean spelt yes", base + "defaults: {static: yes}\n", "t.yaml:4:20",
			[]string{"static must be true or false", `found the string "yes"`}},
		{"max_poll_records zero", base + "defaults: {max_poll_records: 0}\n", "t.yaml:4:30",
			[]string{"max_poll_records must be a whole number from 1 to 2,147,483,647, found 0"}},
		{"max_poll_records huge", base + "defaults: {max_poll_records: 99999999999999999999}\n", "t.yaml:4:30",
			[]string{"max_poll_records must be a whole number from -2,147,483,648 to 2,147,483,647"}},
		{"processing rate zero", base + "defaults: {processing_rate: 0}\n", "t.yaml:4:29",
			[]string{"processing_rate must be a positive number of records per second, found 0"}},
		{"processing rate infinite", base + "defaults: {processing_rate: .inf}\n", "t.yaml:4:29",
			[]string{"processing_rate must be a finite number"}},
		{"processing rate text", base + "defaults: {processing_rate: fast}\n", "t.yaml:4:29",
			[]string{"processing_rate must be a number", `"fast"`}},
		{"null where a value belongs", base + "defaults: {session_timeout: }\n", "t.yaml:4:29",
			[]string{"session_timeout must be a duration", "found nothing (null)"}},
		{"a list where a duration belongs", base + "defaults: {session_timeout: [45s]}\n", "t.yaml:4:29",
			[]string{"session_timeout must be a duration", "found a list"}},
		{"long values are cut in messages", base + "defaults: {protocol: " + strings.Repeat("x", 500) + "}\n", "t.yaml:4:22",
			[]string{`unknown protocol "` + strings.Repeat("x", 40) + `…"`}},
	})
}
