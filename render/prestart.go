package render

// Prestart starts n worker processes of iso before any pool is made, for
// the pools made next to take as their spares, and keeps the process's
// workers of iso alive until release, even between one pool's close and
// the next one's making: a command that runs several builds (a diff's
// head and base, made at different moments) then shares its workers
// among all of them, and one that starts its builds later than a plain
// run (a diff resolves the base's revision first) has its first worker's
// start (about 30 ms) overlap that work. release stops the workers no
// open pool holds. Without a worker command it does nothing.
func Prestart(iso Isolation, n int) (release func()) {
	if len(iso.Command) == 0 {
		return func() {}
	}
	key := workerKey(iso)
	workers.Lock()
	defer workers.Unlock()
	workers.open[key]++
	for range n {
		w, err := spawnWorker(iso.Command, key)
		if err != nil {
			break // each pool then starts its own, and says why it cannot
		}
		workers.idle = append(workers.idle, w)
	}
	return func() { closeWorkers(key) }
}
