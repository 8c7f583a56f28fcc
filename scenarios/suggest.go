package scenarios

import (
	"strings"

	"github.com/rebalsim/rebalsim/internal/suggest"
)

// nearest returns the candidate closest to word, or "" when none is close
// enough to be a plausible typo. Ties go to the earlier candidate, so the
// answer depends only on the order the caller lists candidates in.
//
// Before comparing, both sides are put in the form scenario keys use, so that
// Kafka's own spelling of a config finds our key: "session.timeout.ms" and
// "Session-Timeout" both match "session_timeout". Any of stripPrefixes is
// also removed from word, which lets the group section accept broker names
// such as "group.consumer.heartbeat.interval.ms".
func nearest(word string, candidates []string, stripPrefixes ...string) string {
	w := normalizeKey(word)
	for _, p := range stripPrefixes {
		if rest, ok := strings.CutPrefix(w, p); ok && rest != "" {
			w = rest
			break
		}
	}
	if key := scenarioKeyFor(w); key != "" {
		w = key
	}
	others := make([]string, 0, len(candidates))
	for _, c := range candidates {
		if c != word {
			others = append(others, c)
		}
	}
	return suggest.Nearest(w, others, normalizeKey, max(1, len(w)/3))
}

// scenarioKeyFor returns the scenario key of a Kafka config name (in
// normalized form) whose key is not simply its snake_case spelling.
func scenarioKeyFor(kafkaName string) string {
	switch kafkaName {
	case "partition_assignment_strategy":
		return "assignors"
	case "group_remote_assignor":
		return "remote_assignor"
	case "group_consumer_assignors", "consumer_assignors":
		return "assignor"
	}
	return ""
}

// normalizeKey lowercases s, turns '.' and '-' into '_' and drops a
// trailing unit suffix ("_ms"), the differences between a Kafka config name
// and a scenario key.
func normalizeKey(s string) string {
	s = strings.ToLower(s)
	s = strings.NewReplacer(".", "_", "-", "_").Replace(s)
	return strings.TrimSuffix(s, "_ms")
}

// didYouMean renders a suggestion as the tail of a message.
func didYouMean(word string, candidates []string, stripPrefixes ...string) string {
	if s := nearest(word, candidates, stripPrefixes...); s != "" {
		return `; did you mean "` + s + `"?`
	}
	return ""
}
