package twin

import (
	"os"
	"regexp"
	"strconv"
	"testing"
)

// compressionFromEnv is the time compression the environment variable
// name sets, or def.
func compressionFromEnv(t *testing.T, name string, def float64) float64 {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	c, err := strconv.ParseFloat(v, 64)
	if err != nil || c < 1 {
		t.Fatalf("%s=%q: want a number of at least 1", name, v)
	}
	return c
}

// selected is the cases whose names TWIN_CASES (a regular expression)
// matches; all of them when it is unset. It may be none: the expression
// picks cases across both parts (scripts/twin.sh checks that every case
// it asked for left a verdict).
func selected[C any](t *testing.T, cases []C, name func(C) string) []C {
	t.Helper()
	expr := os.Getenv("TWIN_CASES")
	if expr == "" {
		return cases
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		t.Fatalf("TWIN_CASES=%q: %v", expr, err)
	}
	var out []C
	for _, c := range cases {
		if re.MatchString(name(c)) {
			out = append(out, c)
		}
	}
	return out
}
