// Package upstreamdiff drives analyze/hpa and the Kubernetes v1.34.0
// HorizontalPodAutoscaler code (copied byte-identical into ./podautoscaler)
// with the same seeded random inputs and fails on any difference.
package upstreamdiff

import (
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"testing/synctest"
	"time"
)

var (
	flagN    = flag.Int("diff.n", envInt("UPSTREAMDIFF_N", 10000), "cases per function group (env UPSTREAMDIFF_N)")
	flagSeed = flag.Uint64("diff.seed", uint64(envInt("UPSTREAMDIFF_SEED", 1)), "base seed (env UPSTREAMDIFF_SEED)")
	flagCase = flag.Int("diff.case", -1, "replay only this case index of each group")
)

// maxReported bounds the mismatches printed per group: the first few are
// enough to replay, and a systematic difference would otherwise flood the log.
const maxReported = 5

func envInt(name string, def int) int {
	v, err := strconv.Atoi(os.Getenv(name))
	if err != nil {
		return def
	}
	return v
}

// caseFunc runs one case from r. now is the bubble's clock, which upstream
// also reads through time.Now(). It returns "" when both sides agree, or a
// description of the case and both answers.
type caseFunc func(r *rand.Rand, now time.Time) string

// runGroup runs a group's cases inside a synctest bubble: there time.Now()
// stands still until the test sleeps, so upstream's clock reads equal the
// explicit now the port receives, down to the nanosecond, and cutoffs that
// fall exactly on a timestamp compare the same on both sides.
func runGroup(t *testing.T, name string, f caseFunc) {
	t.Run(name, func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			first, last := 0, *flagN
			if *flagCase >= 0 {
				first, last = *flagCase, *flagCase+1
			}
			bad := 0
			for i := first; i < last; i++ {
				r := rand.New(rand.NewPCG(*flagSeed, groupHash(name)^uint64(i)))
				if d := f(r, time.Now()); d != "" {
					bad++
					if bad <= maxReported {
						t.Errorf("mismatch in %s, seed %d case %d (replay: go test -run '/%s$' -diff.seed=%d -diff.case=%d)\n%s",
							name, *flagSeed, i, name, *flagSeed, i, d)
					}
				}
			}
			if bad > 0 {
				t.Errorf("%s: %d mismatches in %d cases", name, bad, last-first)
			}
		})
	})
}

// groupHash separates the groups' random streams so that adding a group
// does not change another group's cases.
func groupHash(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// diff returns "" when port and upstream are equal (as JSON, which is how
// both are printed), else the case input and both answers.
func diff(input, port, upstream any) string {
	p, u := dump(port), dump(upstream)
	if p == u {
		return ""
	}
	return fmt.Sprintf("input:    %s\nport:     %s\nupstream: %s", dump(input), p, u)
}

func dump(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v (%v)", v, err)
	}
	return string(b)
}

// errText makes errors comparable as JSON.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
