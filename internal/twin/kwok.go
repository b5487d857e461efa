package twin

// DeadTimeAnnotation on a pod sets when kwok turns it ready: a Go
// duration (real time) after it started, or an RFC 3339 time. On a pod
// template it may be ReadyPending instead: each pod then waits, unstarted,
// until the twin stamps the time (stampReady).
const DeadTimeAnnotation = "twin.capreport.dev/dead-time"

// ReadyPending is DeadTimeAnnotation's value on a pod whose ready time the
// twin has yet to stamp.
const ReadyPending = "pending"

// kwokStages is kwok's configuration for the twin. It differs from kwok's
// own "general" stages where the essays' model and a real kubelet agree
// and kwok's defaults do not:
//
//   - a pod starts at once (no random delay), or once the twin has stamped
//     its ready time: phase Pending, its start time set, Ready false, as a
//     kubelet reports a pod whose containers are being created;
//   - it turns Running and Ready after exactly its dead time, or at its
//     stamped time (DeadTimeAnnotation), with no jitter, its start time
//     kept (kwok's general stage moves the start time to the ready moment,
//     which would take every new pod out of the HPA's CPU initialization
//     period);
//   - a pod being deleted goes at once.
//
// The node is kept ready by kwok's own fast node stages.
const kwokStages = `
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: node-initialize
spec:
  resourceRef:
    apiGroup: v1
    kind: Node
  selector:
    matchExpressions:
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: 'NotIn'
      values:
      - 'True'
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      {{ range NodeConditions }}
      - lastHeartbeatTime: {{ $now | Quote }}
        lastTransitionTime: {{ $now | Quote }}
        message: {{ .message | Quote }}
        reason: {{ .reason | Quote }}
        status: {{ .status | Quote }}
        type: {{ .type  | Quote}}
      {{ end }}
      addresses:
      - address: 127.0.0.1
        type: InternalIP
      allocatable:
        cpu: 1k
        memory: 1Ti
        pods: 1M
      capacity:
        cpu: 1k
        memory: 1Ti
        pods: 1M
      phase: Running
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-start
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
    - key: '.status.podIP'
      operator: 'DoesNotExist'
    - key: '.metadata.annotations["` + DeadTimeAnnotation + `"]'
      operator: 'NotIn'
      values:
      - '` + ReadyPending + `'
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: PodScheduled
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: Initialized
      - lastTransitionTime: {{ $now | Quote }}
        reason: ContainersNotReady
        status: "False"
        type: Ready
      - lastTransitionTime: {{ $now | Quote }}
        reason: ContainersNotReady
        status: "False"
        type: ContainersReady
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: false
        restartCount: 0
        started: false
        state:
          waiting:
            reason: ContainerCreating
      {{ end }}
      hostIP: 127.0.0.1
      podIP: {{ PodIPWith .spec.nodeName false ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) | Quote }}
      phase: Pending
      startTime: {{ $now | Quote }}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-ready
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
    - key: '.status.phase'
      operator: 'In'
      values:
      - 'Pending'
    - key: '.status.podIP'
      operator: 'Exists'
  delay:
    durationMilliseconds: 0
    durationFrom:
      expressionFrom: '.metadata.annotations["` + DeadTimeAnnotation + `"]'
  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $started := .status.startTime }}
      conditions:
      - lastTransitionTime: {{ $started | Quote }}
        status: "True"
        type: PodScheduled
      - lastTransitionTime: {{ $started | Quote }}
        status: "True"
        type: Initialized
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: Ready
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: ContainersReady
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: true
        restartCount: 0
        started: true
        state:
          running:
            startedAt: {{ $now | Quote }}
      {{ end }}
      phase: Running
      startTime: {{ $started | Quote }}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-delete
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'Exists'
  next:
    finalizers:
      empty: true
    delete: true
`
