package testutil

import (
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// HeapPeak samples the bytes of heap objects (live and not yet swept, as
// runtime/metrics counts them) every millisecond until Stop, and keeps the
// largest: the peak heap of what runs meanwhile, which -benchmem's B/op
// (bytes allocated, freed or not) does not show.
type HeapPeak struct {
	stop chan struct{}
	done chan struct{}
	peak atomic.Uint64
}

const heapObjects = "/memory/classes/heap/objects:bytes"

// StartHeapPeak starts sampling.
func StartHeapPeak() *HeapPeak {
	h := &HeapPeak{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(h.done)
		s := []metrics.Sample{{Name: heapObjects}}
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > h.peak.Load() {
				h.peak.Store(v)
			}
			select {
			case <-h.stop:
				return
			case <-t.C:
			}
		}
	}()
	return h
}

// Stop ends the sampling and returns the peak in bytes.
func (h *HeapPeak) Stop() uint64 {
	close(h.stop)
	<-h.done
	return h.peak.Load()
}
