package gen

// The fixed tables the generator draws from. Changing any of them changes
// the data every seed gives.

// Sales tracking codes: category 1 and 2 get custom names, as accounts
// usually rename them; the rest keep the standard ones.
var categoryNames = [5]string{"Region", "Channel"}

var codeCatalogue = [5][]struct{ code, name, email string }{
	{{"NORTH", "North", ""}, {"SOUTH", "South", ""}, {"EAST", "East", ""}, {"WEST", "West", ""}},
	{{"DIRECT", "Direct sales", ""}, {"PARTNER", "Partner", "partners@billing.example"}, {"ONLINE", "Online self-serve", ""}},
	{{"REP-AB", "Alex Brown", "alex.brown@billing.example"}, {"REP-CD", "Casey Diaz", "casey.diaz@billing.example"}, {"REP-EF", "Emery Fox", "emery.fox@billing.example"}},
	{{"SPRING24", "Spring 2024 campaign", ""}, {"BF24", "Black Friday 2024", ""}, {"WEBINAR", "Webinar sign-up", ""}},
	{{"RETAIL", "Retail", ""}, {"HEALTH", "Healthcare", ""}, {"LOGISTICS", "Logistics", ""}},
}

var codeShare = [5]int{90, 80, 60, 40, 30} // % of customers with a code of each category

// catalogueProduct is a plan product: its price is v × 10^exp a month,
// and perSeat is the largest quantity a subscription has, 0 for one.
type catalogueProduct struct {
	name, gl, itemPrefix string
	v                    int64
	exp                  int32
	perSeat              int64
}

// The plan catalogue. Prices are monthly; yearly subscriptions pay ten
// months. Some prices have three or four decimals, as metered prices do.
var planCatalogue = []struct {
	name, description string
	products          []catalogueProduct
}{
	{"Starter", "Starter plan", []catalogueProduct{
		{"Starter platform fee", "4000", "Workspace", 2900, -2, 0},
		{"Additional user", "4010", "User", 950, -2, 10},
	}},
	{"Professional", "Professional plan", []catalogueProduct{
		{"Professional platform fee", "4000", "Workspace", 9900, -2, 0},
		{"Additional user", "4010", "User", 14125, -3, 25},
		{"Priority support", "4300", "Support line", 4999, -2, 0},
	}},
	{"Enterprise", "Enterprise plan", []catalogueProduct{
		{"Enterprise platform fee", "4000", "Workspace", 49900, -2, 0},
		{"Additional user", "4010", "User", 19125, -3, 200},
		{"Dedicated success manager", "4300", "Manager", 25000, -2, 0},
	}},
	{"Fleet Tracking", "Fleet tracking plan, per vehicle", []catalogueProduct{
		{"Vehicle tracking", "4100", "Vehicle", 124995, -4, 120},
		{"Telematics data", "4100", "Device", 3275, -3, 120},
		{"Fleet dashboard", "4000", "Dashboard", 2500, -2, 0},
	}},
	{"Data Archive", "Cold storage archive", []catalogueProduct{
		{"Archive storage (per TB)", "4200", "Volume", 213333, -4, 40},
		{"Archive platform fee", "4000", "Vault", 1500, -2, 0},
	}},
}

// Names are in pairs: as written, and as an email address has it.
var firstNames = [][2]string{
	{"Olivia", "olivia"}, {"Liam", "liam"}, {"Emma", "emma"}, {"Noah", "noah"}, {"Ava", "ava"},
	{"Mateo", "mateo"}, {"Sophia", "sophia"}, {"Lucas", "lucas"}, {"Isabella", "isabella"},
	{"Ethan", "ethan"}, {"Mia", "mia"}, {"James", "james"}, {"Amelia", "amelia"}, {"Aiden", "aiden"},
	{"Harper", "harper"}, {"Benjamin", "benjamin"}, {"Evelyn", "evelyn"}, {"Elijah", "elijah"},
	{"Chloé", "chloe"}, {"Wei", "wei"}, {"Priya", "priya"}, {"Omar", "omar"}, {"Fatima", "fatima"},
	{"Hiroshi", "hiroshi"}, {"Ingrid", "ingrid"}, {"Jean-Luc", "jean-luc"}, {"Sean", "sean"},
	{"Zoe", "zoe"}, {"Carlos", "carlos"}, {"Anika", "anika"}, {"Grace", "grace"}, {"Daniel", "daniel"},
}

var lastNames = [][2]string{
	{"Smith", "smith"}, {"Johnson", "johnson"}, {"Williams", "williams"}, {"Brown", "brown"},
	{"García", "garcia"}, {"Miller", "miller"}, {"Davis", "davis"}, {"Rodriguez", "rodriguez"},
	{"Martinez", "martinez"}, {"Nguyen", "nguyen"}, {"O'Brien", "obrien"}, {"Müller", "mueller"},
	{"Kowalski", "kowalski"}, {"Tanaka", "tanaka"}, {"Patel", "patel"}, {"Anderson", "anderson"},
	{"Thomas", "thomas"}, {"Taylor", "taylor"}, {"Moore", "moore"}, {"Jackson", "jackson"},
	{"Martin", "martin"}, {"Lee", "lee"}, {"Thompson", "thompson"}, {"White", "white"},
	{"Harris", "harris"}, {"Clark", "clark"}, {"Lewis", "lewis"}, {"Walker", "walker"},
	{"Hall", "hall"}, {"Young", "young"}, {"King", "king"}, {"van der Berg", "vanderberg"},
}

var (
	companyFirst  = []string{"Northwind", "Blue Harbor", "Summit", "Redwood", "Silver Lake", "Ironclad", "Bright Path", "Evergreen", "Granite", "Pioneer", "Lakeside", "Copperline"}
	companySecond = []string{"Traders", "Systems", "Outfitters", "Partners", "Energy", "Dental", "Farms", "Freight", "Software", "Hotels", "Analytics", "Builders"}
	companySuffix = []string{"Logistics", "Holdings", "Consulting", "Labs", "Foods", "Medical Group", "& Sons", "Transport", "Inc.", "LLC"}
	titles        = []string{"Mr.", "Ms.", "Dr.", "Mx."}
	currencies    = []string{"USD", "CAD", "EUR", "GBP"}
	paymentTerms  = []struct {
		name string
		days int
	}{{"Net30", 30}, {"Net15", 15}, {"Net45", 45}}
	taxRates = []int64{500, 750, 1300} // basis points
)

// One-off products bought outside subscriptions. Tracked ones are
// hardware, listed only with showTrackedItems.
var purchases = []struct {
	name, description, gl string
	min, max              int64 // price range in cents
	qty                   byte  // '1' one, 'u' units, 'h' half hours, 'm' metered
	tracked               bool
	weight                int // how often it is bought, against the others
}{
	{"Onboarding and setup", "One-time onboarding", "4500", 15000, 50000, '1', false, 10},
	{"Consulting hours", "Professional services", "4600", 12500, 17500, 'h', false, 20},
	{"Training session", "Remote training session", "4600", 30000, 90000, 'u', false, 8},
	{"GPS tracker unit", "Tracker hardware", "4700", 4900, 8900, 'u', true, 5},
	{"SIM card", "Data SIM", "4700", 500, 1000, 'u', true, 5},
	{"Installation visit", "On-site installation", "4600", 9500, 14500, 'u', false, 8},
	{"Data overage (GB)", "Data beyond the plan allowance", "4200", 150, 400, 'm', false, 30},
	{"Custom report development", "Custom reporting", "4600", 50000, 200000, '1', false, 6},
	{"Vehicle camera", "Dash camera hardware", "4700", 19900, 29900, 'u', true, 3},
}

var shipping = struct{ name, description, gl string }{"Shipping and handling", "Courier delivery", "4800"}

var invoiceNotes = []string{"Thank you for your business.", "Includes prorated charges.", "Please reference the PO number on payment.", "Payment by bank transfer preferred."}

var (
	streets = []string{"Main St", "Oak Ave", "Maple Dr", "Cedar Ln", "Harbor Rd", "King St W", "Elm St", "Lakeshore Blvd"}
	cities  = []string{"Springfield", "Riverside", "Franklin", "Toronto", "Portland", "Madison", "Georgetown", "Fairview"}
)

var jobTypes = []string{"PriceChange", "CustomerImport", "SubscriptionImport", "PurchaseImport"}
