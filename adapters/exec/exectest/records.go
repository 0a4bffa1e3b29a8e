package exectest

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/dbbench/dbbench/adapters/exec/protocol"
	"github.com/dbbench/dbbench/dataset"
)

// RecordsEnv, set to 1 beside FakeEnv, makes the fake list capability ops and serve YCSB's records
// (load_records and do) from a map: correctly (OK), or lying as its behaviour says: Formula answers
// reads from dataset.YCSB's formula over the seed and stores no write; OneNs and Zero do the work
// (lyingWork per operation) and report 1 ns or 0.
const RecordsEnv = "DBBENCH_EXECTEST_RECORDS"

// Record clients that lie in their records only (correct with the persons), for the record checks
// of client-test: RecordsFormula answers reads from the formula and stores no write, RecordsOneNs
// reports 1 ns for each operation's real work.
const (
	RecordsFormula = "records-formula"
	RecordsOneNs   = "records-one-ns"
)

// formula says whether the fake's records come from the formula instead of a store.
func (f *fake) formula() bool { return f.behaviour == Formula || f.behaviour == RecordsFormula }

// recordStore is the fake's records: key to fields.
type recordStore struct {
	recs   map[string][]string
	y      dataset.YCSB // Formula's generator (the shape load_records names, the seed open did)
	fields int
	count  int
}

func servesRecords() bool { return os.Getenv(RecordsEnv) == "1" }

// loadRecords reads the record file (Formula: only its shape).
func (f *fake) loadRecords(r request, m map[string]any) error {
	st := &recordStore{recs: map[string][]string{}, fields: r.FieldCount}
	var err error
	if st.y, err = dataset.NewYCSB(f.seed, r.FieldCount, r.FieldLength, false); err != nil {
		return err
	}
	st.count = r.Count
	if !f.formula() {
		_, _, err = protocol.ReadRecordFile(r.File, func(key []byte, fields [][]byte) error {
			v := make([]string, len(fields))
			for i, b := range fields {
				v[i] = string(b)
			}
			st.recs[string(key)] = v
			return nil
		})
		if err != nil {
			return err
		}
	}
	f.rec = st
	m["rows"] = r.Count
	return nil
}

// do answers one do request, spending an operation's work in its timed region.
func (f *fake) do(r request, m map[string]any) error {
	st := f.rec
	if st == nil {
		return fmt.Errorf("do: no records loaded")
	}
	start := time.Now()
	var err error
	switch r.Kind {
	case protocol.KindRead:
		v, ok := st.read(r.Key)
		m["found"] = ok
		if ok {
			m["fields"] = v
		}
	case protocol.KindUpdate:
		err = st.update(f.formula(), r)
	case protocol.KindInsert:
		if _, ok := st.recs[r.Key]; ok {
			err = fmt.Errorf("insert of %q: the key exists", r.Key)
		} else if !f.formula() {
			st.recs[r.Key] = r.Fields
		}
	case protocol.KindScan:
		rows, sum := st.scan(r.Key, r.Count)
		tally(m, rows, sum)
	default:
		err = fmt.Errorf("do: unknown kind %q", r.Kind)
	}
	if f.behaviour == RecordsOneNs {
		f.workPer(start, 1, lyingWork)
		m["ns"] = 1
		return err
	}
	f.work(start, 1)
	m["ns"] = f.report(time.Since(start).Nanoseconds())
	return err
}

// read finds a record; Formula computes any user<n> key of the first records from the seed.
func (st *recordStore) read(key string) ([]string, bool) {
	if v, ok := st.recs[key]; ok {
		return slices.Clone(v), true
	}
	if len(st.recs) > 0 {
		return nil, false
	}
	for i := range int64(st.count) { // Formula: the loaded records are the formula's first ones
		if string(st.y.Key(i)) == key {
			out := make([]string, st.fields)
			for f, b := range st.y.Fields(i) {
				out[f] = string(b)
			}
			return out, true
		}
	}
	return nil, false
}

func (st *recordStore) update(formula bool, r request) error {
	v, ok := st.recs[r.Key]
	switch {
	case formula:
		return nil
	case !ok:
		return fmt.Errorf("update of %q: no such record", r.Key)
	case r.Field < 0 || r.Field >= len(v):
		return fmt.Errorf("update of field %d: records have %d", r.Field, len(v))
	}
	v[r.Field] = r.Value
	return nil
}

// scan sums up to n records in key byte order from the first key >= start.
func (st *recordStore) scan(start string, n int) (int, uint64) {
	keys := make([]string, 0, len(st.recs))
	for k := range st.recs {
		if strings.Compare(k, start) >= 0 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var sum uint64
	keys = keys[:min(n, len(keys))]
	for _, k := range keys {
		sum += dataset.RecordSum(k, st.recs[k])
	}
	return len(keys), sum
}
