package render

import (
	"slices"
	"sync"
)

// prestarted are worker processes started before the pools that take
// them as their spares (Prestart), each waiting for its setup.
var prestarted struct {
	sync.Mutex
	workers []*worker
}

// Prestart starts n worker processes of iso before any pool is made, for
// the pools made next to take as their spares: a command that starts its
// builds later than a plain run (a diff resolves the base's revision
// first) then has its first worker's start (about 30 ms) overlap that
// work. release stops the ones no pool took. Without a worker command it
// does nothing.
func Prestart(iso Isolation, n int) (release func()) {
	if len(iso.Command) == 0 {
		return func() {}
	}
	var mine []*worker
	for range n {
		w, err := spawnWorker(iso.Command, workerKey(iso))
		if err != nil {
			break // each pool then starts its own, and says why it cannot
		}
		mine = append(mine, w)
	}
	prestarted.Lock()
	prestarted.workers = append(prestarted.workers, mine...)
	prestarted.Unlock()
	return func() {
		prestarted.Lock()
		var left []*worker
		prestarted.workers = slices.DeleteFunc(prestarted.workers, func(w *worker) bool {
			if slices.Contains(mine, w) {
				left = append(left, w)
				return true
			}
			return false
		})
		prestarted.Unlock()
		for _, w := range left {
			w.stop() // it exits at the end of its input
		}
	}
}

// takePrestarted is a prestarted worker pools of key take, nil when none
// waits.
func takePrestarted(key string) *worker {
	prestarted.Lock()
	defer prestarted.Unlock()
	for i, w := range prestarted.workers {
		if w.key == key {
			prestarted.workers = slices.Delete(prestarted.workers, i, i+1)
			return w
		}
	}
	return nil
}
