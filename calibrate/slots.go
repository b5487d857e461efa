package calibrate

import (
	"math"
	"sort"
	"time"

	"github.com/prometheus/common/model"
)

// slots are one key's samples on the grid, by slot, one per slot: a key
// costs the samples it has (16 bytes each), not a slot for every step of
// --since, which for 150,000 series of one sample each was 2.4 GB an
// answer.
type slots []slot

type slot struct {
	i int32 // the grid's slot (grid.n is at most about 10,000: Options.Defaults)
	v float64
}

// cursor reads a key's slots in ascending order, each read going on from
// the last: a pod's rates are walked in slot order, and looking up its CPU
// series at each of them costs one pass over those, not a search each.
type cursor struct {
	s slots
	j int
}

func (c *cursor) at(i int) float64 {
	for c.j < len(c.s) && int(c.s[c.j].i) < i {
		c.j++
	}
	if c.j < len(c.s) && int(c.s[c.j].i) == i {
		return c.s[c.j].v
	}
	return math.NaN()
}

// perPod is a range result keyed by one label.
type perPod map[string]slots

// slotsBuilder keys a range answer's series by a label as they are read:
// the finite samples on the grid are kept; series with one key are summed.
type slotsBuilder struct {
	g        grid
	out      perPod
	unsorted map[string]bool // keys with a sample at or before an earlier one
}

func newSlotsBuilder(g grid) *slotsBuilder {
	return &slotsBuilder{g: g, out: perPod{}, unsorted: map[string]bool{}}
}

func (b *slotsBuilder) add(key string, pts []model.SamplePair) {
	s, seen := b.out[key]
	if !seen {
		s = make(slots, 0, len(pts)) // most keys have one series, all on the grid: no slack
	}
	for _, p := range pts {
		i, v := b.g.slot(p.Timestamp), float64(p.Value)
		if i < 0 || !finite(v) {
			continue
		}
		if n := len(s); n > 0 && int(s[n-1].i) >= i {
			b.unsorted[key] = true
		}
		if v == 0 {
			v = 0 // as 0 + v was: -0 sums to +0
		}
		s = append(s, slot{int32(i), v})
	}
	b.out[key] = s
}

// done sorts the keys whose series overlapped and sums their samples of
// one slot, in the order they came (the order the dense sums had).
func (b *slotsBuilder) done() perPod {
	for key := range b.unsorted {
		s := b.out[key]
		sort.SliceStable(s, func(x, y int) bool { return s[x].i < s[y].i })
		out := s[:0]
		for _, p := range s {
			if n := len(out); n > 0 && out[n-1].i == p.i {
				out[n-1].v += p.v
				continue
			}
			out = append(out, p)
		}
		b.out[key] = out
	}
	return b.out
}

// grid is the range queries' time axis; slot i is start + i·step.
type grid struct {
	start time.Time
	step  time.Duration
	n     int
}

func (g grid) slot(t model.Time) int {
	i := int(math.Round(float64(t.Time().Sub(g.start)) / float64(g.step)))
	if i < 0 || i >= g.n {
		return -1
	}
	return i
}
