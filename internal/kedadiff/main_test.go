// Package kedadiff drives capreport's ScaledObject conversion
// (analyze.ConvertScaledObject) and KEDA v2.19.0's own derivation of the
// HorizontalPodAutoscaler (controllers/keda/hpa.go, copied byte-identical
// into ./keda, over KEDA's real scale handler and scalers) with the same
// seeded ScaledObjects, and fails on any difference.
package kedadiff

import (
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

var (
	flagN    = flag.Int("diff.n", envInt("KEDADIFF_N", 10000), "cases per group (env KEDADIFF_N)")
	flagSeed = flag.Uint64("diff.seed", uint64(envInt("KEDADIFF_SEED", 1)), "base seed (env KEDADIFF_SEED)")
	flagCase = flag.Int("diff.case", -1, "replay only this case index of each group")
	flagShow = flag.Bool("diff.show", false, "print every case with both answers (with -diff.case)")
)

// maxReported bounds the mismatches printed per group: the first few are
// enough to replay, and a systematic difference would otherwise flood the log.
var maxReported = envInt("KEDADIFF_REPORT", 5)

func envInt(name string, def int) int {
	v, err := strconv.Atoi(os.Getenv(name))
	if err != nil {
		return def
	}
	return v
}

// caseFunc runs one case from r and returns "" when both sides agree, or
// a description of the case and both answers, and the name of the
// documented deliberate difference (README) the disagreement is, if any.
type caseFunc func(r *rand.Rand) (mismatch, deliberate string)

// runGroup runs a group's cases, each from its own random stream, so that
// a case replays from (seed, group, index) alone.
func runGroup(t *testing.T, name string, f caseFunc) {
	t.Run(name, func(t *testing.T) {
		first, last := 0, *flagN
		if *flagCase >= 0 {
			first, last = *flagCase, *flagCase+1
		}
		bad := 0
		deliberate := map[string]int{}
		for i := first; i < last; i++ {
			r := rand.New(rand.NewPCG(*flagSeed, groupHash(name)^uint64(i)))
			d, why := f(r)
			if strings.HasPrefix(d, agree) {
				t.Log(d)
				continue
			}
			if d != "" && why != "" {
				deliberate[why]++
				if *flagShow {
					t.Logf("deliberate difference %s:\n%s", why, d)
				}
				continue
			}
			if d != "" {
				bad++
				if bad <= maxReported {
					t.Errorf("mismatch in %s, seed %d case %d (replay: go test -run '/%s$' -diff.seed=%d -diff.case=%d -diff.show)\n%s",
						name, *flagSeed, i, name, *flagSeed, i, d)
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d mismatches in %d cases", name, bad, last-first)
		}
		t.Logf("%s: %d cases, seed %d, %d mismatches; deliberate differences %v", name, last-first, *flagSeed, bad, deliberate)
	})
}

// groupHash separates the groups' random streams so that adding a group
// does not change another group's cases.
func groupHash(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// agree starts the description of a case whose answers are equal, which
// diff gives only with -diff.show.
const agree = "(the answers agree)\n"

// diff returns "" when capreport's and KEDA's answers are equal (as JSON,
// which is how both are printed), else the case input and both answers.
func diff(input, capreport, keda any) string {
	c, k := dump(capreport), dump(keda)
	d := fmt.Sprintf("input:     %s\ncapreport: %s\nkeda:      %s", dump(input), c, k)
	switch {
	case c != k:
		return d
	case *flagShow:
		return agree + d
	}
	return ""
}

func dump(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v (%v)", v, err)
	}
	return string(b)
}
