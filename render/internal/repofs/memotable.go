package repofs

import (
	"sync"
	"sync/atomic"
)

// memoTable is a bounded concurrent memo from K to V.
type memoTable[K comparable, V any] struct {
	m sync.Map
	n atomic.Int32
}

// maxMemoEntries bounds each table.
const maxMemoEntries = 1 << 16

// get is k's value, made by make the first time (and every time once the
// table is full). Two goroutines asking at once may both make it; both
// get an answer the disk gave.
func (t *memoTable[K, V]) get(k K, make func() V) V {
	if v, ok := t.m.Load(k); ok {
		return v.(V)
	}
	v := make()
	t.put(k, v)
	return v
}

func (t *memoTable[K, V]) put(k K, v V) {
	if t.n.Add(1) <= maxMemoEntries {
		t.m.Store(k, v)
	}
}
