package triplex

import (
	"math"
	"strconv"

	"github.com/dbbench/dbbench/adapters/triplex/store"
	"github.com/dbbench/dbbench/dataset"
)

// The bench fixture is Triplex's own (test/stress datalog-pagination): per entity i a name
// "Person i", a score i % 100 and a group "group:<i % 250>", three facts per entity. Entity i has
// entity number i+1.
const (
	groupCount = 250
	scoreRange = 100
	// scoreStep is how far an update moves a score: update k of entity i sets (i + k*scoreStep) % 100,
	// never equal to the previous value.
	scoreStep = 37
	// factsPerEntity is the facts of one fixture entity (and of one person).
	factsPerEntity = 3
)

// benchSchema is the fixture's attributes. Sorted by ident they are group, name, score (the store
// numbers attributes in ident order), hence the constants below.
var benchSchema = store.Schema{
	// Triplex's fixture ids are "bench:<timestamp>:<i padded>"; same shape and length here.
	EntityPrefix: "bench:1700000000000:",
	Attrs: []store.Attr{
		{Ident: ":bench/name", Kind: store.String},
		{Ident: ":bench/score", Kind: store.Number, Counted: true},
		{Ident: ":bench/group", Kind: store.String, Counted: true},
	},
}

const (
	attrGroup = 0
	attrName  = 1
	attrScore = 2
)

// personSchema stores the person dataset as facts: entity e is the person of rank e-1 in email
// order, so entity order is email order.
var personSchema = store.Schema{
	EntityPrefix: "person:",
	Attrs: []store.Attr{
		{Ident: ":person/email", Kind: store.String},
		{Ident: ":person/name", Kind: store.String},
		{Ident: ":person/age", Kind: store.Number},
	},
}

const (
	personAge   = 0
	personEmail = 1
	personName  = 2
)

func benchName(i int) string  { return "Person " + strconv.Itoa(i) }
func benchGroup(i int) string { return "group:" + strconv.Itoa(i%groupCount) }

// benchScore is entity i's score after k updates.
func benchScore(i, k int) float64 { return float64((i + k*scoreStep) % scoreRange) }

// benchValues fills the fixture values of entity i (score after k updates).
func benchValues(i, k int, vals []store.Value) {
	vals[attrGroup] = store.StringValue(benchGroup(i))
	vals[attrName] = store.StringValue(benchName(i))
	vals[attrScore] = store.NumberValue(benchScore(i, k))
}

// updated reports whether update rounds touch entity i: a share of the entities, spread evenly.
func updated(i int, share float64) bool {
	return math.Floor(float64(i+1)*share) > math.Floor(float64(i)*share)
}

// personValues fills the facts of a person.
func personValues(p dataset.Person, vals []store.Value) {
	vals[personAge] = store.NumberValue(float64(p.Age))
	vals[personEmail] = store.Value{Kind: store.String, Str: p.Email}
	vals[personName] = store.Value{Kind: store.String, Str: p.Name}
}
