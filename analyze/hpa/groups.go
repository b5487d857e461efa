package hpa

import "time"

// PodGroups is the outcome of groupPods. ReadyCount counts pods with
// multiplicity (a cohort of Count n adds n); the name sets identify the
// cohorts that fell into each bucket.
type PodGroups struct {
	ReadyCount int64
	Unready    map[string]bool
	Missing    map[string]bool
	Ignored    map[string]bool
}

// GroupPods sorts the listed pods into ready, unready, missing and ignored,
// in upstream's order of precedence (§3): deleting or failed pods are
// ignored before anything else, pending pods are unready even without a
// metric, a pod without a sample is missing, and only for cpu does the
// Ready condition decide between ready and unready.
func GroupPods(pods []Pod, metrics PodMetrics, resource string, cpuInitializationPeriod, delayOfInitialReadinessStatus time.Duration, now time.Time) PodGroups {
	g := PodGroups{
		Unready: map[string]bool{},
		Missing: map[string]bool{},
		Ignored: map[string]bool{},
	}
	for _, p := range pods {
		if p.Deleting || p.Phase == PodFailed {
			g.Ignored[p.Name] = true
			continue
		}
		if p.Phase == PodPending {
			g.Unready[p.Name] = true
			continue
		}
		m, ok := metrics[p.Name]
		if !ok {
			g.Missing[p.Name] = true
			continue
		}
		if resource == "cpu" && cpuSampleUnready(p, m, cpuInitializationPeriod, delayOfInitialReadinessStatus, now) {
			g.Unready[p.Name] = true
			continue
		}
		g.ReadyCount += p.size()
	}
	return g
}

// cpuSampleUnready is the CPU-only readiness rule. CPU burns hot while a
// pod initialises, so inside the initialisation period a sample counts only
// once a full metric window has passed since the last readiness change;
// after it, only a pod that has never been ready is held back.
func cpuSampleUnready(p Pod, m PodMetric, cpuInit, readinessDelay time.Duration, now time.Time) bool {
	c := p.Ready
	if c == nil || p.StartTime == nil {
		return true
	}
	if p.StartTime.Add(cpuInit).After(now) {
		return !c.Status || m.Timestamp.Before(c.LastTransitionTime.Add(m.Window))
	}
	// Strictly after: a transition exactly readinessDelay after start means
	// the pod was ready at some point.
	return !c.Status && p.StartTime.Add(readinessDelay).After(c.LastTransitionTime)
}
