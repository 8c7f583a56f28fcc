package scenarios

import "strings"

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
	if len(word) > maxSuggestLen {
		return ""
	}
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
	limit := max(1, len(w)/3)
	best, bestDist := "", limit+1
	for _, c := range candidates {
		if c == word {
			continue
		}
		n := normalizeKey(c)
		if abs(len(n)-len(w)) >= bestDist {
			continue
		}
		if d := editDistance(w, n); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// maxSuggestLen bounds the work spent on a suggestion: edit distance is
// quadratic, and nobody mistypes a 200-character key.
const maxSuggestLen = 100

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

// editDistance is the optimal string alignment distance between a and b,
// in bytes: Levenshtein's insertions, deletions and substitutions, plus the
// transposition of two neighbours, the commonest typo ("rnage").
func editDistance(a, b string) int {
	// Three rows: the one before the previous is needed for transpositions.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// didYouMean renders a suggestion as the tail of a message.
func didYouMean(word string, candidates []string, stripPrefixes ...string) string {
	if s := nearest(word, candidates, stripPrefixes...); s != "" {
		return `; did you mean "` + s + `"?`
	}
	return ""
}
