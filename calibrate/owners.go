package calibrate

import "strings"

// ownerRef is one owner reference as kube-state-metrics exports it.
type ownerRef struct{ Kind, Name string }

// owners maps pods to the workloads that own them, through the owner
// chains of kube_pod_owner and kube_replicaset_owner: a pod owned by a
// ReplicaSet belongs to the ReplicaSet's owner (a Deployment, a Rollout),
// other pods to their direct owner (a StatefulSet, a DaemonSet).
type owners struct {
	pod        map[string]ownerRef // pod → owner
	replicaSet map[string]ownerRef // replicaset → owner
}

func newOwners() *owners {
	return &owners{pod: map[string]ownerRef{}, replicaSet: map[string]ownerRef{}}
}

// workload returns the top of pod's chain; ok is false for an unknown pod.
func (o *owners) workload(pod string) (ownerRef, bool) {
	ref, ok := o.pod[pod]
	if !ok {
		return ownerRef{}, false
	}
	if strings.EqualFold(ref.Kind, "ReplicaSet") {
		if top, ok := o.replicaSet[ref.Name]; ok && top.Kind != "" && top.Kind != "<none>" {
			return top, true
		}
	}
	return ref, true
}

// byWorkload groups the known pods by the workload at the top of their
// chain, keyed by workloadKey.
func (o *owners) byWorkload() map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for pod := range o.pod {
		ref, _ := o.workload(pod)
		k := workloadKey(ref.Kind, ref.Name)
		if out[k] == nil {
			out[k] = map[string]bool{}
		}
		out[k][pod] = true
	}
	return out
}

func workloadKey(kind, name string) string { return strings.ToLower(kind) + "/" + name }
