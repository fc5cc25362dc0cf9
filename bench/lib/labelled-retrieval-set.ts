/**
 * A labelled retrieval set written for this project: learnings of the three kinds, each with queries
 * that paraphrase what an agent would ask when it needs that learning (no query repeats the
 * learning's wording), among hard negatives: learnings of the same user, or the same domain, that
 * share words or topic with the target but answer another question. Profiles and user playbooks
 * belong to users and are searched per user, as /api/search scopes them; agent playbooks are
 * searched project-wide. Version it when it changes: results of different versions do not compare.
 *
 * v2 adds the keyword slice (KEYWORD_*): learnings that carry an identifier, a product or a proper
 * name, asked for by that term, each beside a sibling of the same shape (E-4012 beside E-4015,
 * Aurora X2 beside Aurora X3), because agents often search for exactly such a term and a sentence
 * model sees little difference between two codes.
 */
export const LABELLED_SET_VERSION = "v2";

/** One learning: its text, then the queries it is the answer to. */
type Labelled = readonly [text: string, ...queries: string[]];

/** A playbook: trigger, content, then its queries. */
type LabelledPlaybook = readonly [trigger: string, content: string, ...queries: string[]];

/** Per user: their profiles. Neighbours in a list are each other's hard negatives. */
export const PROFILES: Record<string, readonly Labelled[]> = {
  amara: [
    ["Is allergic to peanuts and carries an epinephrine pen", "does she have any nut allergy", "which foods could cause an anaphylactic reaction for her"],
    ["Is lactose intolerant but eats hard cheeses", "can she have dairy products", "milk sensitivity"],
    ["Follows a vegetarian diet since 2019", "does she eat meat", "is she a vegetarian"],
    ["Lives in Lisbon, in the Alfama district", "which city is her home", "where does she live"],
    ["Is travelling to Porto next week for a conference", "upcoming trip plans", "where is she going soon"],
    ["Works as a data engineer at a logistics company", "what is her job", "her profession and employer's industry"],
    ["Prefers answers in Portuguese when discussing legal topics", "language preference for law questions", "which language for legal advice"],
    ["Has two cats named Lua and Sol", "does she have pets", "names of her cats"],
  ],
  bjorn: [
    ["Runs marathons and is training for Berlin in September", "what race is he preparing for", "his running goals this autumn"],
    ["Has a knee injury from skiing and avoids downhill running", "any physical limitations", "what injury does he have"],
    ["Uses a Garmin Forerunner watch to track workouts", "which fitness tracker does he use", "his sports wearable"],
    ["Drinks coffee only before noon", "caffeine habits", "when does he have coffee"],
    ["Is learning Japanese for a trip to Kyoto", "which language is he studying", "why is he taking language lessons"],
    ["Pays rent in euros but is paid in Swedish kronor", "currency of his salary", "which currency is his income in"],
    ["Wants weekly summaries instead of daily notifications", "how often should we send him updates", "notification frequency preference"],
    ["Has a daughter starting primary school this year", "does he have children", "his kid's school situation"],
  ],
  chen: [
    ["Manages a team of six backend engineers", "how big is her team", "is she a people manager"],
    ["Prefers code examples in Go over Python", "which programming language should examples use", "her favourite language for snippets"],
    ["Deploys to Kubernetes on Google Cloud", "what infrastructure does she run on", "her cloud provider and orchestration"],
    ["Is on call every third week", "how often is she on pager duty", "on-call rotation"],
    ["Dislikes long meetings and asks for written proposals", "how does she like decisions to be proposed", "meeting preferences"],
    ["Is colour blind (red-green) and needs charts with patterns", "accessibility needs for graphs", "can she tell red from green"],
    ["Is based in Singapore, UTC+8", "her time zone", "where is she located"],
    ["Reads technical books on distributed systems in her spare time", "her hobbies", "what does she read for fun"],
  ],
  dario: [
    ["Owns a small bakery with four employees", "what business does he run", "how many staff does he have"],
    ["Uses QuickBooks for accounting", "which bookkeeping software", "his accounting tool"],
    ["Wants to open a second shop in Milan next year", "expansion plans", "where does he want a new location"],
    ["Is gluten intolerant himself", "does he have celiac or a wheat problem", "his own dietary restriction"],
    ["Sells sourdough and focaccia at weekend markets", "which products does he sell at markets", "his market goods"],
    ["Prefers phone calls to email for urgent matters", "best way to reach him urgently", "urgent contact channel"],
    ["Speaks Italian natively and reads English slowly", "his native language", "how well does he read English"],
    ["Has a loan with a regional bank due in 2027", "outstanding debts", "when is his bank loan due"],
  ],
  elif: [
    ["Is studying for the bar exam in July", "what exam is she preparing for", "when is her law test"],
    ["Prefers flashcards and spaced repetition", "how does she like to study", "her revision method"],
    ["Has ADHD and benefits from short tasks", "attention difficulties", "does she need tasks broken down"],
    ["Works part-time at a café on weekends", "does she have a job", "her weekend work"],
    ["Lives with two flatmates in Istanbul", "her living situation", "who does she live with"],
    ["Is vegan and avoids honey", "what does she not eat", "does she eat animal products"],
    ["Wants reminders at 7 am", "what time should reminders arrive", "morning alert time"],
    ["Plays the oud in a small folk band", "musical instrument", "is she in a band"],
  ],
  farah: [
    ["Is pregnant, due in March", "is she expecting a baby", "when is her due date"],
    ["Has type 1 diabetes and uses an insulin pump", "chronic health conditions", "does she need insulin"],
    ["Works remotely as a UX designer", "her occupation", "does she work from home"],
    ["Uses Figma and dislikes Sketch", "design tool preference", "which design software does she like"],
    ["Lives in Toronto and commutes by bike in summer", "how does she get around", "her city"],
    ["Is saving for a house deposit", "financial goals", "what is she saving money for"],
    ["Prefers dark mode in every app", "display theme preference", "does she like light or dark interfaces"],
    ["Speaks Arabic, French and English", "which languages does she speak", "is she multilingual"],
  ],
  goran: [
    ["Drives an electric car, a 2022 Kia EV6", "what car does he own", "is his vehicle electric"],
    ["Lives in a rural area with slow internet", "his connection quality", "does he have fast broadband"],
    ["Is a retired history teacher", "his former profession", "is he still working"],
    ["Volunteers at the local library on Tuesdays", "volunteering activities", "what does he do on Tuesdays"],
    ["Is hard of hearing and prefers text over voice", "hearing difficulties", "should we call him or write"],
    ["Grows tomatoes and peppers in a greenhouse", "gardening hobby", "what vegetables does he grow"],
    ["Takes blood thinners and must avoid ibuprofen", "medication interactions", "which painkillers are unsafe for him"],
    ["Has three grandchildren in Zagreb", "family", "where do his grandkids live"],
  ],
  hana: [
    ["Is a first-year medical student in Prague", "what does she study", "which university city"],
    ["Has a student budget of about 400 euros a month", "how much money can she spend", "her monthly budget"],
    ["Is afraid of flying and travels by train", "how does she prefer to travel", "does she take planes"],
    ["Likes bouldering at an indoor gym", "sports she does", "does she climb"],
    ["Uses an iPhone and an old Windows laptop", "her devices", "which phone does she use"],
    ["Is shy about speaking Czech and practises with a tutor", "language confidence", "does she have a tutor"],
    ["Sleeps badly before exams", "sleep problems", "when does she have insomnia"],
    ["Prefers short bullet-point answers", "answer format preference", "how long should replies be"],
  ],
};

/** Per user: their playbooks (when trigger, do content). */
export const USER_PLAYBOOKS: Record<string, readonly LabelledPlaybook[]> = {
  amara: [
    ["She asks for a recipe", "Suggest vegetarian dishes without peanuts", "recipe suggestions for her dinner", "what meals to propose"],
    [
      "She asks about a contract clause",
      "Answer in Portuguese and cite the article of the civil code",
      "legal question about an agreement",
      "how to explain a lease term",
    ],
    ["She plans a trip", "Include train options between Lisbon and Porto", "travel planning", "how to get to her conference"],
    ["She asks to debug a data pipeline", "Ask for the Airflow DAG and the failing task's log first", "pipeline failure troubleshooting", "broken ETL job"],
  ],
  bjorn: [
    ["He asks for a training plan", "Avoid downhill intervals and favour flat tempo runs", "marathon workout schedule", "weekly running program"],
    ["He asks for a summary", "Send it once a week, on Sunday evening", "how to deliver his digest", "update cadence"],
    ["He asks about prices", "Show amounts in both euros and kronor", "cost questions", "how to present money"],
    ["He asks for vocabulary practice", "Use Japanese with furigana and English glosses", "language exercise", "learning words for Kyoto"],
  ],
  chen: [
    ["She asks for a code sample", "Write it in Go with error handling, no Python", "example implementation", "snippet request"],
    ["She asks for a chart", "Use patterns and labels, never red-green contrast", "data visualisation", "graph of metrics"],
    ["She proposes a meeting", "Offer a written one-page proposal instead", "scheduling a discussion", "calendar invite"],
    ["She asks about an outage", "Check the GKE cluster events and the on-call runbook", "incident in production", "service is down"],
  ],
  dario: [
    ["He asks about taxes", "Explain in Italian and mention QuickBooks reports", "VAT question", "tax filing help"],
    ["He asks for a new product idea", "Propose gluten-free options he can taste himself", "menu innovation", "what to bake next"],
    ["Something is urgent", "Suggest a phone call rather than a long email", "time-critical issue", "emergency communication"],
    ["He asks about financing", "Mention the 2027 loan before suggesting new credit", "borrowing money", "funding the Milan shop"],
  ],
  elif: [
    ["She asks for a study plan", "Break it into 20-minute tasks with flashcards", "exam preparation schedule", "how to revise"],
    ["She asks for a reminder", "Schedule it for 7 am", "set an alert", "wake-up notification"],
    ["She asks for a recipe", "Only vegan recipes, no honey", "what to cook", "dinner idea"],
    ["She asks about a tort law case", "Summarise the holding first, then the facts", "case brief", "explain a court decision"],
  ],
  farah: [
    ["She asks about food", "Flag carbohydrate counts and pregnancy-safe ingredients", "meal suggestions", "what can she eat"],
    ["She shares a design", "Give feedback referencing Figma components", "design critique", "review her mockup"],
    ["She asks about mortgages", "Explain first-time buyer programs in Ontario", "buying a home", "house deposit advice"],
    ["She asks for a translation", "Offer Arabic and French versions", "translate a message", "multilingual text"],
  ],
  goran: [
    ["He asks for directions", "Include charging stations for his EV", "route planning", "road trip"],
    ["He wants to watch a video tutorial", "Offer a text transcript, not a call", "video help", "how-to content"],
    ["He asks about pain relief", "Recommend paracetamol and warn against ibuprofen", "headache medicine", "what painkiller to take"],
    ["He asks about his greenhouse", "Give tomato and pepper care tips for the season", "plant care", "gardening question"],
  ],
  hana: [
    ["She asks about travel", "Suggest train connections, never flights", "trip to visit family", "how to travel home"],
    ["She asks for an answer", "Keep it to three bullet points", "response style", "format of replies"],
    ["She cannot sleep before an exam", "Suggest a wind-down routine and no caffeine after 4 pm", "insomnia help", "pre-exam nerves at night"],
    ["She asks about spending", "Keep suggestions under her 400 euro monthly budget", "buying something", "cost of activities"],
  ],
};

/** Agent playbooks of the project: guidance for every user. Neighbours share a domain on purpose. */
export const AGENT_PLAYBOOKS: readonly LabelledPlaybook[] = [
  [
    "The user reports a failed payment",
    "Check the card's expiry and 3-D Secure status before suggesting another card",
    "card was declined",
    "payment did not go through",
  ],
  ["The user asks for a refund", "Confirm the order number and explain the 14-day return window", "money back for an order", "return and reimbursement"],
  [
    "The user disputes a charge",
    "Open a dispute ticket and tell them it takes up to 10 business days",
    "unrecognised transaction on statement",
    "chargeback request",
  ],
  ["The user wants to cancel a subscription", "Offer a pause first, then cancel at period end if they insist", "stop my monthly plan", "end membership"],
  ["The user wants to upgrade their plan", "Show the prorated price for the rest of the billing period", "move to premium tier", "change to a bigger plan"],
  ["The user forgot their password", "Send a reset link; never ask for the old password", "can't log in", "reset credentials"],
  ["The user's account is locked", "Verify identity with the last four digits and the email on file", "too many login attempts", "account blocked"],
  [
    "The user asks to delete their account",
    "Explain that data is erased within 30 days and offer an export first",
    "remove my profile entirely",
    "close account and erase data",
  ],
  [
    "The user wants to change their email address",
    "Require confirmation from both the old and the new address",
    "update contact email",
    "new email for my account",
  ],
  ["The user enables two-factor authentication", "Recommend an authenticator app over SMS", "set up 2FA", "extra login security"],
  ["The user asks where their parcel is", "Share the tracking link and the carrier's expected date", "package status", "delivery tracking"],
  ["The parcel arrived damaged", "Ask for a photo and send a replacement without requiring a return", "broken item in the box", "product arrived smashed"],
  ["The delivery is late", "Apologise, give the new estimate and offer free shipping next time", "order hasn't arrived on time", "shipment delayed"],
  ["The user wants to change the delivery address", "Change it only if the order has not shipped yet", "ship to a different place", "wrong address on order"],
  ["The user asks about international shipping", "List the countries served and mention customs fees", "deliver abroad", "shipping outside the country"],
  [
    "The user reports a bug in the mobile app",
    "Ask for the app version, device model and steps to reproduce",
    "app crashes on my phone",
    "something is broken in the app",
  ],
  ["The user asks about data privacy", "Link the privacy policy and name the data processors", "what do you do with my data", "GDPR information"],
  ["The user requests an invoice", "Generate it from the billing page and include the VAT number", "receipt for accounting", "need a tax invoice"],
  ["The user asks for a discount", "Offer the loyalty code only after 12 months of membership", "any coupons available", "cheaper price"],
  ["The user is angry and uses insults", "Stay calm, acknowledge the frustration and offer a human agent", "abusive customer", "rude and upset user"],
  ["The user asks for a human", "Transfer to live chat with the conversation summary attached", "talk to a real person", "escalate to an agent"],
  ["The user asks a medical question", "Do not diagnose; suggest contacting a doctor or emergency services", "symptoms advice", "is this illness serious"],
  ["The user asks for legal advice", "Give general information and recommend a licensed lawyer", "can I sue", "law question"],
  ["The user writes in Spanish", "Answer in Spanish and keep product names in English", "message not in English", "customer speaks another language"],
  ["The user asks about opening hours", "Give the store hours for their city and holiday exceptions", "when are you open", "store schedule"],
  ["The user wants to book an appointment", "Offer the three nearest free slots", "schedule a visit", "reserve a time"],
  ["The user wants to reschedule an appointment", "Cancel the old slot only after the new one is confirmed", "move my booking", "change appointment time"],
  [
    "The user asks about a product's compatibility",
    "Check the model number against the compatibility table",
    "will this work with my device",
    "does the charger fit",
  ],
  ["The user asks for a product recommendation", "Ask for budget and main use before recommending", "which one should I buy", "suggest a product"],
  [
    "The user reports a security vulnerability",
    "Thank them and route it to the security team's disclosure address",
    "found a security hole",
    "bug bounty report",
  ],
  ["The user asks about warranty", "Explain the two-year warranty and what it excludes", "is my item covered", "guarantee period"],
  ["The user wants to exchange a size", "Send the new size first and a prepaid return label", "shoes too small", "swap for a bigger size"],
  ["The user asks about an out-of-stock item", "Offer a restock notification and a similar alternative", "item unavailable", "when will it be back"],
  ["The user asks for a price match", "Match only identical items from listed retailers", "cheaper elsewhere", "competitor price"],
  ["The user asks to speak to a manager", "Explain the escalation path and the response time", "supervisor please", "complaint to management"],
  ["The user reports a missing item in the order", "Check the packing list and ship the missing item", "something was missing", "incomplete order"],
  ["The user asks how to export their data", "Point to the export button under account settings", "download my information", "get a copy of my data"],
  ["The user says the website is slow", "Check the status page and ask for their region and browser", "site takes forever to load", "performance problem"],
  ["The user asks about gift cards", "Explain that gift cards never expire and cannot be refunded", "buy a voucher", "present card balance"],
  ["The user asks about student discounts", "Verify enrolment through the student verification partner", "discount for students", "university pricing"],
];

/** The keyword slice, per user: profiles that carry a name or identifier; siblings are each other's negatives. */
export const KEYWORD_PROFILES: Record<string, readonly Labelled[]> = {
  amara: [
    ["Her work laptop is a ThinkPad X1 Carbon", "ThinkPad", "X1 Carbon"],
    ["Her employee badge number is LX-40917", "LX-40917", "badge LX-40917"],
    ["Her company's warehouse software is Atlas WMS", "Atlas WMS"],
  ],
  bjorn: [
    ["His Strava handle is bjorn_runs_sthlm", "bjorn_runs_sthlm"],
    ["Follows the Pfitzinger 18/55 marathon plan", "Pfitzinger", "18/55 plan"],
    ["His physiotherapist is Dr. Lindqvist at Sophiahemmet", "Lindqvist", "Sophiahemmet"],
  ],
  chen: [
    ["Her team owns the service ledger-sync", "ledger-sync"],
    ["Provisions clusters with the Terraform module gke-autopilot-v3", "gke-autopilot-v3", "Terraform module"],
    ["Incidents of her team page through PagerDuty service Orion", "Orion", "PagerDuty"],
  ],
  dario: [
    ["His VAT number is IT04519870961", "IT04519870961"],
    ["Buys his flour from Molino Grassi", "Molino Grassi"],
    ["His oven is a Rational iCombi Pro", "iCombi", "Rational oven"],
  ],
};

/** The keyword slice of user playbooks: trigger, content, then the terms that ask for it. */
export const KEYWORD_USER_PLAYBOOKS: Record<string, readonly LabelledPlaybook[]> = {
  chen: [
    ["She asks about the VPN", "Tell her to use the WireGuard profile wg-home-02, not OpenVPN", "wg-home-02", "WireGuard"],
    ["She asks about the staging database", "Point her to the read replica pg-stage-ro and never the primary", "pg-stage-ro"],
  ],
  dario: [
    ["He asks about the till", "The SumUp Solo reader restarts with a long press on the power key", "SumUp Solo"],
    ["He asks about invoices", "Export them from QuickBooks as CSV for his accountant Bianchi", "Bianchi", "QuickBooks CSV"],
  ],
};

/** The keyword slice of agent playbooks, in sibling pairs that differ by the term asked for. */
export const KEYWORD_AGENT_PLAYBOOKS: readonly LabelledPlaybook[] = [
  ["The payment fails with error E-4012", "E-4012 means the issuer blocked the card: ask the user to call their bank", "E-4012", "error E-4012"],
  ["The payment fails with error E-4015", "E-4015 means the card has expired: ask for the new expiry date", "E-4015", "error E-4015"],
  ["The user asks about the Aurora X2 headphones", "The Aurora X2 battery cannot be replaced: offer the battery service", "Aurora X2"],
  ["The user asks about the Aurora X3 headphones", "The Aurora X3 pairs with two devices at once over multipoint", "Aurora X3"],
  ["Webhook deliveries fail with HTTP 410", "A 410 means the endpoint is gone: disable the webhook and email its owner", "webhook 410"],
  ["Webhook deliveries fail with HTTP 429", "A 429 means the receiver is rate limiting: retry later with jitter", "webhook 429"],
  ["The user asks about the Zephyr plan", "Zephyr is a retired plan: existing customers keep it, nobody can buy it", "Zephyr"],
  ["The user asks about the Nimbus plan", "Nimbus includes five seats and single sign-on", "Nimbus"],
];
