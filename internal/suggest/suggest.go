// Package suggest finds the nearest known word to a mistyped one, for error
// messages such as `unknown key "sesion_timeout"; did you mean
// "session_timeout"?`.
package suggest

// Nearest returns the candidate closest to word within limit edits, or ""
// when none is that close. Each candidate is compared through norm (nil
// compares it as is), so that a caller can match spellings that differ in
// form only; the candidate itself is returned. Ties go to the earlier
// candidate, so the answer depends only on the order of candidates.
func Nearest(word string, candidates []string, norm func(string) string, limit int) string {
	if len(word) > maxLen {
		return ""
	}
	best, bestDist := "", limit+1
	for _, c := range candidates {
		n := c
		if norm != nil {
			n = norm(c)
		}
		if abs(len(n)-len(word)) >= bestDist {
			continue // cannot beat the best: the length difference alone costs more
		}
		if d := Distance(word, n); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// maxLen bounds the work spent on a suggestion: the distance is quadratic,
// and nobody mistypes a 200-character key.
const maxLen = 100

// Distance is the optimal string alignment distance between a and b, in
// bytes: Levenshtein's insertions, deletions and substitutions, plus the
// transposition of two neighbours, the commonest typo ("rnage").
func Distance(a, b string) int {
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
