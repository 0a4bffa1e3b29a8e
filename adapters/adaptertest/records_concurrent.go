package adaptertest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/dbbench/dbbench/adapters"
	"github.com/dbbench/dbbench/dataset"
)

// The concurrent record check's sizes: hot records read and updated at once, versions each
// updater writes to each of its records (above those checkUpdates wrote), rounds of reads and
// scans, records inserted meanwhile.
const (
	hotRecords     = 8
	firstVersion   = 10
	hotVersions    = 12
	readRounds     = 12
	concurrentIns  = 20
	reportProblems = 5
)

// problems collects what goroutines found wrong, for the test's goroutine to report.
type problems struct {
	mu   sync.Mutex
	list []string
}

func (p *problems) add(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.list = append(p.list, fmt.Sprintf(format, args...))
}

// checkConcurrent runs at once two updaters writing versions of hot records, two readers reading
// those records (each field must be one of the values written to it, whole: a torn or half-made
// write fails), an inserter and a scanner (each full scan counts the records there were before
// plus at most those inserted so far). Afterwards every record holds its last version. Under
// go test -race a store without the locking it needs fails here.
func (m *recordModel) checkConcurrent(t testing.TB) {
	hot := m.sample(hotRecords)
	allowed := m.allowedValues(hot)
	before := len(m.recs)
	var p problems
	var wg sync.WaitGroup
	up, updates := m.in.Target.(adapters.RecordUpdater)
	for g := range 2 {
		if updates {
			wg.Go(func() { m.updateHot(up, hot, g, &p) })
		}
		wg.Go(func() { m.readHot(hot, allowed, &p) })
	}
	ins, inserts := m.in.Target.(adapters.RecordInserter)
	if inserts {
		wg.Go(func() { m.insertMany(ins, &p) })
	}
	if sc, ok := m.in.Target.(adapters.RecordScanner); ok {
		most := before
		if inserts {
			most += concurrentIns
		}
		wg.Go(func() { m.scanAll(sc, before, most, &p) })
	}
	wg.Wait()
	for i, msg := range p.list {
		if i == reportProblems {
			t.Errorf("... %d problems in all", len(p.list))
			break
		}
		t.Errorf("concurrent reads, updates, inserts and scans: %s", msg)
	}
	m.settle(hot, updates, inserts)
	for _, k := range m.sortedKeys() {
		m.expect(t, "a record after the concurrent operations", []byte(k), nil)
	}
	if _, ok := m.in.Target.(adapters.RecordScanner); ok {
		m.checkScans(t)
	}
}

// allowedValues lists, per hot record and field, every value a read may see while the updaters
// run: the field as it is now, and each version an updater writes to it.
func (m *recordModel) allowedValues(hot []int64) map[int64][]map[string]bool {
	out := map[int64][]map[string]bool{}
	for _, i := range hot {
		fields := m.recs[string(m.y.Key(i))]
		sets := make([]map[string]bool, len(fields))
		for f, v := range fields {
			sets[f] = map[string]bool{string(v): true}
		}
		for v := int64(firstVersion); v < firstVersion+hotVersions; v++ {
			f, value := m.y.Update(i, v)
			sets[f][string(value)] = true
		}
		out[i] = sets
	}
	return out
}

// updateHot writes versions of the hot records of updater g (every other one), interleaved.
func (m *recordModel) updateHot(up adapters.RecordUpdater, hot []int64, g int, p *problems) {
	for v := int64(firstVersion); v < firstVersion+hotVersions; v++ {
		for j, i := range hot {
			if j%2 != g {
				continue
			}
			f, value := m.y.Update(i, v)
			if err := up.UpdateRecord(m.in.ctx, m.y.Key(i), f, value); err != nil {
				p.add("UpdateRecord(%q, %s): %v", m.y.Key(i), dataset.FieldName(f), err)
				return
			}
			scribble(value)
		}
	}
}

// readHot reads the hot records over and over, each field checked against its allowed values.
func (m *recordModel) readHot(hot []int64, allowed map[int64][]map[string]bool, p *problems) {
	var dst [][]byte
	for range readRounds {
		for _, i := range hot {
			var found bool
			var err error
			dst, found, err = m.read(m.y.Key(i), dst)
			if err != nil || !found {
				p.add("ReadRecord(%q): found %v, %v", m.y.Key(i), found, err)
				return
			}
			if len(dst) != m.y.FieldCount {
				p.add("ReadRecord(%q): %d fields, want %d", m.y.Key(i), len(dst), m.y.FieldCount)
				return
			}
			for f, v := range dst {
				if !allowed[i][f][string(v)] {
					p.add("ReadRecord(%q): %s is %q, a value nobody wrote there", m.y.Key(i), dataset.FieldName(f), clip(v))
					return
				}
			}
		}
	}
}

// insertNum is the record number of the k-th record the concurrent check inserts.
func (m *recordModel) insertNum(k int) int64 { return m.n + 200 + int64(k) }

func (m *recordModel) insertMany(ins adapters.RecordInserter, p *problems) {
	for k := range concurrentIns {
		i := m.insertNum(k)
		if err := ins.InsertRecord(m.in.ctx, m.y.Key(i), m.y.Fields(i)); err != nil {
			p.add("InsertRecord(%q): %v", m.y.Key(i), err)
			return
		}
	}
}

// scanAll scans every record, again and again, while the others write.
func (m *recordModel) scanAll(sc adapters.RecordScanner, least, most int, p *problems) {
	for range readRounds {
		tl, err := sc.ScanRecords(m.in.ctx, nil, most+10)
		if err != nil {
			p.add("ScanRecords from the first key: %v", err)
			return
		}
		if tl.Rows < int64(least) || tl.Rows > int64(most) {
			p.add("ScanRecords from the first key read %d records while there were %d to %d", tl.Rows, least, most)
			return
		}
	}
}

// settle brings the model up to date with what the concurrent check wrote: each hot record's
// fields at the last version written to them, and the inserted records.
func (m *recordModel) settle(hot []int64, updated, inserted bool) {
	if updated {
		for _, i := range hot {
			fields := m.recs[string(m.y.Key(i))]
			for v := int64(firstVersion); v < firstVersion+hotVersions; v++ {
				f, value := m.y.Update(i, v)
				fields[f] = value
			}
		}
	}
	if inserted {
		for k := range concurrentIns {
			i := m.insertNum(k)
			m.recs[string(m.y.Key(i))] = m.y.Fields(i)
		}
	}
}
