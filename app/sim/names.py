"""Word lists the demo-data generator draws from: people, places, businesses and groceries."""

from __future__ import annotations

FIRST_NAMES = (
    "Ava", "Ben", "Carla", "Dmitri", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jamal", "Kara",
    "Liam", "Maya", "Noah", "Olga", "Pavel", "Quinn", "Rosa", "Sam", "Tara", "Umar", "Vera",
    "Wes", "Xenia", "Yusuf", "Zoe", "Aaron", "Bianca", "Chen", "Dana", "Emil", "Fatima", "Gus",
    "Hannah", "Ivan", "Julia", "Kenji", "Lena", "Marco", "Nadia", "Owen", "Priya", "Ravi",
    "Sofia", "Tom", "Ulla", "Victor", "Wendy",
)  # fmt: skip

LAST_NAMES = (
    "Abbott", "Baker", "Castillo", "Dubois", "Edwards", "Fischer", "Garcia", "Hansen", "Ito",
    "Jensen", "Kowalski", "Larsen", "Moreno", "Nguyen", "Okafor", "Patel", "Quinlan", "Rossi",
    "Schmidt", "Tanaka", "Ueda", "Varga", "Walsh", "Xu", "Yilmaz", "Zimmer", "Brooks", "Carter",
    "Diaz", "Evans", "Foster", "Gray", "Hughes", "Irwin", "Kim", "Lopez", "Murphy", "Novak",
    "Olsen", "Price", "Reyes", "Stone", "Turner", "Vance", "Wright", "Young",
)  # fmt: skip

PLACES = (
    ("Springfield", "IL"), ("Madison", "WI"), ("Columbus", "OH"), ("Dayton", "OH"),
    ("Des Moines", "IA"), ("Omaha", "NE"), ("Peoria", "IL"), ("Rockford", "IL"),
    ("Green Bay", "WI"), ("Fargo", "ND"), ("Duluth", "MN"), ("St. Cloud", "MN"),
    ("Lansing", "MI"), ("Toledo", "OH"), ("Fort Wayne", "IN"), ("Evansville", "IN"),
    ("Cedar Rapids", "IA"), ("Sioux Falls", "SD"), ("Topeka", "KS"), ("Wichita", "KS"),
)  # fmt: skip

STREETS = (
    "Main St", "Oak Ave", "Maple Dr", "Cedar Ln", "Elm St", "Lakeview Rd", "Market St",
    "Mill Rd", "Park Ave", "Prairie Way", "River Rd", "Washington Blvd", "Commerce Dr",
)  # fmt: skip

STORE_WORDS = (
    "Harbor", "Valley", "Sunrise", "Prairie", "Northside", "Hometown", "Golden", "Riverside",
    "Maple", "Summit", "Cornerstone", "Family", "Lakeside", "Heritage", "Pioneer", "Greenway",
)  # fmt: skip

STORE_KINDS = ("Market", "Grocers", "Foods", "Fresh Market", "Supermarket", "Food Center")

COMPANY_WORDS = (
    "Acme", "Blue Ridge", "Crestline", "Dairyland", "Evergreen", "Farmstead", "Great Plains",
    "Highland", "Iron Creek", "Juniper", "Keystone", "Lone Oak", "Meadowbrook", "North Star",
    "Orchard Hill", "Pinecrest", "Quarry", "Red Barn", "Silver Lake", "Timberline",
)  # fmt: skip

COMPANY_KINDS = ("Foods", "Brands", "Provisions", "Farms", "Beverage Co.", "Bakeries", "Dairy")

ADJECTIVES = (
    "Organic", "Classic", "Honey", "Smoked", "Spicy", "Lite", "Original", "Roasted",
    "Sea Salt", "Vanilla", "Whole Grain", "Garden", "Family Size", "Zesty", "Creamy",
)  # fmt: skip

PRODUCT_NOUNS = (
    ("Peanut Butter", "Grocery"), ("Tortilla Chips", "Snacks"), ("Cheddar Cheese", "Dairy"),
    ("Greek Yogurt", "Dairy"), ("Orange Juice", "Beverages"), ("Sparkling Water", "Beverages"),
    ("Coffee Beans", "Beverages"), ("Pasta Sauce", "Grocery"), ("Granola", "Grocery"),
    ("Frozen Pizza", "Frozen"), ("Ice Cream", "Frozen"), ("Chicken Breast", "Meat"),
    ("Bacon", "Meat"), ("Sourdough Bread", "Bakery"), ("Bagels", "Bakery"), ("Apples", "Produce"),
    ("Salad Mix", "Produce"), ("Dish Soap", "Household"), ("Paper Towels", "Household"),
    ("Dog Food", "Pet"), ("Cookies", "Snacks"), ("Pretzels", "Snacks"), ("Butter", "Dairy"),
)  # fmt: skip

SIZES = ("8 oz", "12 oz", "16 oz", "24 oz", "32 oz", "1 lb", "2 lb", "5 lb", "1 gal", "500 g")

ORDER_UNITS = (("CS", "Case"), ("EA", "Each"), ("LB", "Pound"), ("PK", "Pack"))

CUSTOMER_CLASSES = (
    "Independent grocer", "Regional chain", "Convenience store", "Foodservice", "Pharmacy",
    "Club store", "Natural foods", "Hardware and general", "Online retailer", "Institutional",
    "Specialty food", "Military exchange",
)  # fmt: skip

HALLS = ("Hall A", "Hall B", "Hall C", "Pavilion", "Annex")

ROUTES = ("North route", "South route", "East route", "West route", "Metro", "Rural", "Lakes")
