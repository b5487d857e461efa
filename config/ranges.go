package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Range is the documented range of one value capreport reads from an
// annotation or .capreport.yaml. Durations are held in seconds. A value
// outside its range is refused before anything is sized from it: the
// models allocate and loop per simulated second, so a range is also what
// bounds one autoscaler's simulation cost.
type Range struct {
	Min, Max float64
	// MinOpen excludes Min itself (a factor must exceed 1, a rate 0).
	MinOpen  bool
	Duration bool // Min and Max are seconds, written as durations
}

// Contains reports whether v lies in the range.
func (r Range) Contains(v float64) bool {
	if r.MinOpen && v <= r.Min || v < r.Min {
		return false
	}
	return v <= r.Max
}

// String writes the range as the README does: "[1s, 1h]", "(1, 1000]".
func (r Range) String() string {
	open := "["
	if r.MinOpen {
		open = "("
	}
	return open + r.format(r.Min) + ", " + r.format(r.Max) + "]"
}

func (r Range) format(v float64) string {
	if r.Duration {
		if v == 0 {
			return "0s"
		}
		return shortDuration(time.Duration(v * float64(time.Second)))
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// shortDuration drops time.Duration's zero tails: "1h", "15m", "1m30s".
func shortDuration(d time.Duration) string {
	s := d.String()
	for _, tail := range []string{"m0s", "h0m"} {
		if len(s) > len(tail) && s[len(s)-len(tail):] == tail {
			s = s[:len(s)-len(tail)+1]
		}
	}
	return s
}

func (r Range) check(raw string, v float64) error {
	if !r.Contains(v) {
		return fmt.Errorf("%q is outside the range %s", raw, r)
	}
	return nil
}

// refuse completes a parser's error with the range, so that every value
// refused for a ranged key says what would be accepted ("-5s" is not
// positive, and the range is [1s, 1h]).
func (r Range) refuse(err error) error {
	return fmt.Errorf("%w; the range is %s", err, r)
}

// MaxOverloads is the most design overloads one autoscaler may list: each
// is a simulation of up to a few hours, so the list bounds the Size row's
// cost.
const MaxOverloads = 8

// The documented ranges, in one place (README.md's annotation table and
// configuration section quote them; TestREADMEQuotesRanges keeps them
// equal). Annotation and workload keys use the annotation spelling, the
// controller settings their .capreport.yaml spelling under cluster.
var ranges = map[string]Range{
	string(KeyDeadTime):               {Min: 1, Max: 3600, Duration: true},
	string(KeyPodRate):                {Min: 0.001, Max: 1e6},
	string(KeyLatencyTarget):          {Min: 1, Max: 86400, Duration: true},
	string(KeyOverload):               {Min: 1, MinOpen: true, Max: 1000},
	string(KeyDemand):                 {Min: 0.001, Max: 1e9},
	string(KeyStep):                   {Min: 1, MinOpen: true, Max: 1000},
	string(KeyMetricWindow):           {Min: 1, Max: 900, Duration: true},
	string(KeySaturatedEfficiency):    {Min: 0, MinOpen: true, Max: 1},
	"partitions":                      {Min: 1, Max: 100000},
	"cluster.syncPeriod":              {Min: 1, Max: 300, Duration: true},
	"cluster.tolerance":               {Min: 0, Max: 0.99},
	"cluster.downscaleStabilization":  {Min: 0, Max: 3600, Duration: true},
	"cluster.cpuInitializationPeriod": {Min: 0, Max: 3600, Duration: true},
	"cluster.initialReadinessDelay":   {Min: 0, Max: 3600, Duration: true},
}

// RangeOf is the documented range of name (an annotation key, or a
// cluster setting as cluster.<yamlName>); false when it has none.
func RangeOf(name string) (Range, bool) {
	r, ok := ranges[name]
	return r, ok
}

// durationIn parses a duration (parse) and holds it to the range of name.
func durationIn(name string, parse func(string) (time.Duration, error)) func(string) (time.Duration, error) {
	return func(s string) (time.Duration, error) {
		d, err := parse(s)
		if err != nil {
			return 0, ranges[name].refuse(err)
		}
		return d, ranges[name].check(s, d.Seconds())
	}
}

// numberIn parses a number (parse) and holds it to the range of name.
func numberIn(name string, parse func(string) (float64, error)) func(string) (float64, error) {
	return func(s string) (float64, error) {
		f, err := parse(s)
		if err != nil {
			return 0, ranges[name].refuse(err)
		}
		return f, ranges[name].check(s, f)
	}
}

// factorsIn parses a list of factors, each held to the overload range, at
// most MaxOverloads of them.
func factorsIn(s string) ([]float64, error) {
	r := ranges[string(KeyOverload)]
	fs, err := ParseFactors(s)
	if err != nil {
		return nil, r.refuse(err)
	}
	if len(fs) > MaxOverloads {
		return nil, fmt.Errorf("%q lists %d overloads, at most %d are simulated", s, len(fs), MaxOverloads)
	}
	for _, f := range fs {
		if !r.Contains(f) {
			return nil, fmt.Errorf("%q has the overload %gx outside the range %s", s, f, r)
		}
	}
	return fs, nil
}

// ParsePartitions reads the capreport.io/partitions annotation: a whole
// number of Kafka partitions within its range.
func ParsePartitions(s string) (int32, error) {
	t := strings.TrimSpace(s)
	p, err := strconv.ParseInt(t, 10, 32)
	if err != nil || p <= 0 {
		return 0, ranges["partitions"].refuse(fmt.Errorf("%q is not a positive partition count, expected e.g. 12", s))
	}
	return int32(p), ranges["partitions"].check(s, float64(p))
}
