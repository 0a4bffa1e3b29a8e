package kube

import (
	"fmt"
	"strconv"
	"time"
)

// What each pod asks of the cluster (resources) and how long each Job may run (deadlines), from
// what the config asks (Work, which the command reads from it: this package reads no config). The
// formulas are stated here and in docs/kubernetes.md, in the same words.

// Work is what the config asks of the pods, as the command reads it from the config and hands it in.
type Work struct {
	// Workers is the most operations one shard runs at once: its share of a YCSB workload's
	// workers or of the concurrent workload's readers (at least 1 when it runs anything).
	Workers int
	// DatasetBytes is the data one pod generates and holds for one store: the persons (packed,
	// with their offsets and sort order) and the YCSB records, at the largest dataset size.
	DatasetBytes int64
	// InPodStores is how many of the config's targets keep their store in the pod (all but those
	// on a server the shards share, LoadOnce).
	InPodStores int
	// Run is one shard's work, priced pessimistically by the command: loading the stores in its pod
	// and its share of every workload's runs (warm-ups, timed repeats and their re-warm runs).
	Run time.Duration
	// Load is the load Job's work (LoadOnce): the shared stores' persons and records, priced alike.
	Load time.Duration
}

// Resources are a container's requests, equal to its limits (the Guaranteed QoS class: a shard's
// figures do not depend on its neighbours' bursts, and a namespace's compute quota can count it).
// A field left "" is the formula's.
type Resources struct {
	CPU, Memory, EphemeralStorage string
}

// The formulas' constants.
const (
	// MaxCPU caps the cores a run pod asks for: more shards, not bigger ones, is how a sharded
	// run grows (docs/measurements.md, "Sharded runs": a shard should run near its own limit).
	MaxCPU = 4
	// BaseMemory is what a dbbench process needs besides its data: the runtime, the histograms of
	// every operation type and clock, the report.
	BaseMemory = 512 << 20
	// BaseEphemeral is the scratch space besides the stores' files: TMPDIR, and HOME's caches for a
	// client started with `go run` or npm.
	BaseEphemeral = 1 << 30
	// DataFactor is how many times the dataset a store in the pod takes in memory and on the
	// scratch volume: the generated data, the store's copy, its indexes and the batches in flight.
	DataFactor = 4
	// LoadCPU is the load pod's cores: generating the data beside the driver sending it.
	LoadCPU = 2
	// MergeCPU is the merge pod's: merging is one goroutine reading reports.
	MergeCPU = 1
	// MergeMemoryPerShard is what the merge holds per shard report: the report decoded, its
	// histograms and its interval log (measured: docs/kubernetes.md).
	MergeMemoryPerShard = 4 << 20
	// MergeTimePerShard prices merging one shard's report (measured, with a margin: docs/kubernetes.md).
	MergeTimePerShard = 100 * time.Millisecond

	// DeadlineFactor is the margin on every estimate: a Job that exceeds three times what its work
	// should take is stuck, not slow.
	DeadlineFactor = 3
	// MinDeadline is the least a Job gets: time for a node to pull the image and start the pod.
	MinDeadline = 15 * time.Minute
	// DefaultTTL is how long a finished Job stays to be read (its conditions, its pods' logs)
	// before Kubernetes deletes it.
	DefaultTTL = 24 * time.Hour
)

// mebibytes is n bytes rounded up to a multiple of 64Mi, as a quantity (Gi when whole).
func mebibytes(n int64) string {
	mi := (n + 64<<20 - 1) >> 26 << 6
	if mi%1024 == 0 {
		return strconv.FormatInt(mi/1024, 10) + "Gi"
	}
	return strconv.FormatInt(mi, 10) + "Mi"
}

// runResources are a run pod's, the flags' where given:
//
//	cpu               = min(workers + 1, 4)  (one core beside the workers: the clocks, the dispatcher, GC)
//	memory            = 512Mi + 4 x dataset x max(stores in the pod, 1)
//	ephemeral-storage = 1Gi + 4 x dataset x stores in the pod
//
// each rounded up to a multiple of 64Mi.
func (s *Spec) runResources() Resources {
	w := s.Work
	r := Resources{
		CPU:              strconv.Itoa(min(max(w.Workers, 0)+1, MaxCPU)),
		Memory:           mebibytes(BaseMemory + DataFactor*w.DatasetBytes*int64(max(w.InPodStores, 1))),
		EphemeralStorage: mebibytes(BaseEphemeral + DataFactor*w.DatasetBytes*int64(max(w.InPodStores, 0))),
	}
	if s.Resources.CPU != "" {
		r.CPU = s.Resources.CPU
	}
	if s.Resources.Memory != "" {
		r.Memory = s.Resources.Memory
	}
	if s.Resources.EphemeralStorage != "" {
		r.EphemeralStorage = s.Resources.EphemeralStorage
	}
	return r
}

// loadResources are the load pod's: cpu 2, memory = 512Mi + 4 x dataset, ephemeral-storage 1Gi.
func (s *Spec) loadResources() Resources {
	return Resources{
		CPU:              strconv.Itoa(LoadCPU),
		Memory:           mebibytes(BaseMemory + DataFactor*s.Work.DatasetBytes),
		EphemeralStorage: mebibytes(BaseEphemeral),
	}
}

// mergeResources are a merge pod's: cpu 1, memory = 512Mi + 4Mi x shards, ephemeral-storage 1Gi.
func (s *Spec) mergeResources() Resources {
	return Resources{
		CPU:              strconv.Itoa(MergeCPU),
		Memory:           mebibytes(BaseMemory + MergeMemoryPerShard*int64(s.Shards)),
		EphemeralStorage: mebibytes(BaseEphemeral),
	}
}

func (r Resources) requirements() resourceRequirements {
	m := map[string]string{"cpu": r.CPU, "memory": r.Memory, "ephemeral-storage": r.EphemeralStorage}
	return resourceRequirements{Requests: m, Limits: m}
}

// margin is an estimate with the margin, at least MinDeadline.
func margin(work time.Duration) time.Duration {
	return max(DeadlineFactor*work, MinDeadline)
}

// LoadDeadline is the load Job's activeDeadlineSeconds: max(3 x the load's work, 15 min).
func (s *Spec) LoadDeadline() time.Duration { return margin(s.Work.Load) }

// startWait is how long the run Job waits, from its start, before the shards' timed work begins:
//   - shards started at StartAt: StartAt - the rendering's time (the Job is applied before StartAt);
//   - a suspended run released after the load: the same lead, now from the release (the release
//     sets a start time that far ahead, or less);
//   - NoSuspend with a load: the load's deadline plus the lead (Lead, or StartAt - now when fixed).
func (s *Spec) startWait() time.Duration {
	wait := max(s.StartAt.Sub(s.Now), 0)
	if s.LoadOnce && s.NoSuspend {
		wait = max(wait, s.LoadDeadline()+s.Lead)
	}
	return wait
}

// RunDeadline is the run Job's activeDeadlineSeconds: --deadline, or the start's wait plus
// max(3 x one shard's work, 15 min). A shard is one run (verdict.runs is 1: no extra runs), so
// no verdict budget adds to it.
func (s *Spec) RunDeadline() time.Duration {
	if s.Deadline > 0 {
		return s.Deadline
	}
	return s.startWait() + margin(s.Work.Run)
}

// runAfterStart is how long after the shards' start the run Job may still run: what the merges
// that are not released by hand wait for at most.
func (s *Spec) runAfterStart() time.Duration {
	return max(s.RunDeadline()-s.startWait(), 0)
}

// mergeWork is a merge's own deadline: max(3 x 100 ms x shards, 15 min).
func (s *Spec) mergeWork() time.Duration {
	return margin(time.Duration(s.Shards) * MergeTimePerShard)
}

// MergeDeadline is a merge Job's activeDeadlineSeconds: its own work, counted from its release
// when suspended; with NoSuspend it starts with the run, so the run Job's deadline adds to it.
func (s *Spec) MergeDeadline() time.Duration {
	if s.NoSuspend {
		return s.RunDeadline() + s.mergeWork()
	}
	return s.mergeWork()
}

// seconds is d in whole seconds, rounded up, for activeDeadlineSeconds.
func seconds(d time.Duration) *int64 {
	n := int64((d + time.Second - 1) / time.Second)
	return &n
}

// ttl is ttlSecondsAfterFinished.
func (s *Spec) ttl() *int32 {
	d := s.TTL
	if d == 0 {
		d = DefaultTTL
	}
	n := int32(min((d+time.Second-1)/time.Second, 1<<31-1))
	return &n
}

// describe is a duration as the header says it: 15m0s, 2h30m0s.
func describe(d time.Duration) string {
	return fmt.Sprint(d.Round(time.Second))
}
