package worker

import "testing"

// A pool takes the idle worker that has its setup, else a fresh one, else
// another pool's of its kind, and never one of another command or memory
// limit.
func TestTakeIdleRanks(t *testing.T) {
	type w = Worker[int, int, int]
	s := NewSet[int, int, int]()
	key, otherKey := Key([]string{"capreport"}, 512<<20), Key([]string{"capreport"}, 64<<20)
	p := &Pool[int, int, int]{set: s, key: key}
	other := &Pool[int, int, int]{set: s, key: key}
	foreign := &w{key: otherKey}
	borrowed := &w{key: key, owner: other}
	fresh := &w{key: key}
	own := &w{key: key, owner: p}
	s.idle = []*w{foreign, borrowed, fresh, own}
	for _, want := range []*w{own, fresh, borrowed, nil} {
		if got := p.takeIdle(); got != want {
			t.Fatalf("took %+v, want %+v", got, want)
		}
	}
	if len(s.idle) != 1 || s.idle[0] != foreign {
		t.Errorf("left %v idle, want only the worker of another memory limit", s.idle)
	}
}
