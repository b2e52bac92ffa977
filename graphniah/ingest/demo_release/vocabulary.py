"""Word lists for the synthetic demo release: fields, title parts, names, venues, citation contexts.

Why lists and not a language model: the demo release must be deterministic, offline and fast.
Titles are assembled from per-field templates whose slots draw from per-field phrase lists (and a
topic's own narrower list of problems), plus invented acronyms, which gives millions of distinct,
plausible titles; the generator removes accidental repeats afterwards. Venue names are real venue
names (only names: every id, ISSN and URL attached to them in the demo release is synthetic).
"""

from __future__ import annotations

from dataclasses import dataclass

# Template slots: {A} adjective, {M} method, {T} problem/task (topic-specific), {S} setting,
# {X} invented acronym, {P} property, {N} a second problem of the same field.


@dataclass(frozen=True)
class Venue:
    name: str
    kind: str  # "journal" or "conference"
    abbreviations: tuple[str, ...]


@dataclass(frozen=True)
class Field:
    """One S2 field of study with the vocabulary and habits of its papers."""

    name: str  # S2 ``s2fieldsofstudy`` category
    share: float  # share of all papers
    pace: float  # how much of a paper's reference list cites very recent (in-window) work
    arxiv: float  # share of papers with an arXiv id
    doi: float  # share of papers with a DOI
    pubmed: float  # share with a PubMed id
    venues: tuple[Venue, ...]
    templates: tuple[str, ...]
    methods: tuple[str, ...]
    tasks: tuple[str, ...]
    settings: tuple[str, ...]
    properties: tuple[str, ...]


def _v(name: str, kind: str, *abbr: str) -> Venue:
    return Venue(name, kind, tuple(abbr))


ADJECTIVES: tuple[str, ...] = (
    "Scalable", "Robust", "Efficient", "Adaptive", "Unified", "Interpretable", "Hierarchical",
    "Sparse", "Generalizable", "Lightweight", "Principled", "Data-Efficient", "Provable",
    "Self-Supervised", "Multi-Scale", "Uncertainty-Aware", "Fast", "Accurate", "Distributed",
    "Context-Aware", "Training-Free", "Fine-Grained", "Causal", "Zero-Shot", "Compositional",
    "Energy-Efficient", "Privacy-Preserving", "Decentralized", "Probabilistic", "Hybrid",
    "Stable", "Dynamic", "Modular", "Equivariant", "Reliable", "Low-Cost", "Real-Time",
    "Large-Scale", "Cross-Domain", "Physics-Informed", "Geometric", "Contrastive",
)

SUBTITLES: tuple[str, ...] = (
    "A Systematic Review", "A Case Study", "Evidence from a Multicenter Cohort", "A Benchmark Study",
    "Theory and Practice", "Lessons Learned", "An Empirical Analysis", "A Comparative Study",
    "A Retrospective Analysis", "Design and Evaluation", "A Pilot Study", "A Reproducibility Study",
    "Revisited", "A Position Paper", "Preliminary Results", "A Cross-Sectional Study",
)

CS = Field(
    "Computer Science", 0.27, 0.55, 0.72, 0.55, 0.0,
    (
        _v("Neural Information Processing Systems", "conference", "NeurIPS", "NIPS"),
        _v("International Conference on Machine Learning", "conference", "ICML"),
        _v("International Conference on Learning Representations", "conference", "ICLR"),
        _v("Annual Meeting of the Association for Computational Linguistics", "conference", "ACL"),
        _v("Conference on Empirical Methods in Natural Language Processing", "conference", "EMNLP"),
        _v("Computer Vision and Pattern Recognition", "conference", "CVPR"),
        _v("IEEE International Conference on Computer Vision", "conference", "ICCV"),
        _v("AAAI Conference on Artificial Intelligence", "conference", "AAAI"),
        _v("Knowledge Discovery and Data Mining", "conference", "KDD"),
        _v("The Web Conference", "conference", "WWW"),
        _v("IEEE Transactions on Pattern Analysis and Machine Intelligence", "journal", "IEEE Trans Pattern Anal Mach Intell", "TPAMI"),
        _v("Journal of Machine Learning Research", "journal", "J Mach Learn Res", "JMLR"),
        _v("Transactions on Machine Learning Research", "journal", "TMLR"),
        _v("IEEE Access", "journal", "IEEE Access"),
        _v("USENIX Security Symposium", "conference", "USENIX Security"),
        _v("ACM SIGPLAN Conference on Programming Language Design and Implementation", "conference", "PLDI"),
        _v("Symposium on Operating Systems Principles", "conference", "SOSP"),
        _v("International Conference on Software Engineering", "conference", "ICSE"),
    ),
    (
        "{A} {M} for {T}", "{X}: {A} {M} for {T}", "{M} for {T} in {S}", "Towards {A} {T} with {M}",
        "On the {P} of {M}", "Rethinking {T}: {A} {M} for {S}", "When Does {M} Help {T}?",
        "{X}: {M} Meets {T}", "Scaling {M} for {T}", "Learning {T} from {S}",
        "{T} in {S}: {A} {M} Approach", "Beyond {T}: {M} for {N}", "{A} {T} via {M}",
        "Does {M} Really Improve {T}?", "{X}: Benchmarking {T} in {S}",
    ),
    (
        "Diffusion Models", "Graph Neural Networks", "Mixture-of-Experts", "Retrieval-Augmented Generation",
        "Large Language Models", "Vision Transformers", "Reinforcement Learning from Human Feedback",
        "Low-Rank Adaptation", "State Space Models", "Contrastive Pretraining", "Knowledge Distillation",
        "Speculative Decoding", "Chain-of-Thought Prompting", "Federated Optimization", "Neural Radiance Fields",
        "Gaussian Splatting", "Program Synthesis", "Sparse Attention", "Quantization-Aware Training",
        "Direct Preference Optimization", "Normalizing Flows", "Bayesian Optimization", "Model Merging",
        "In-Context Learning", "Test-Time Adaptation", "Tool-Augmented Agents", "Symbolic Regression",
        "Differentiable Rendering", "Masked Autoencoders", "Flow Matching", "Kernel Methods",
        "Transformers", "Process Reward Models", "Curriculum Learning", "Token Pruning",
    ),
    (
        "Long-Context Reasoning", "Code Generation", "Semantic Segmentation", "Machine Translation",
        "Question Answering", "Text-to-Image Generation", "Molecular Property Prediction",
        "Autonomous Driving", "Recommendation", "Anomaly Detection", "Time Series Forecasting",
        "Speech Recognition", "Robotic Manipulation", "Hallucination Detection", "Video Understanding",
        "Mathematical Reasoning", "Link Prediction", "Fact Verification", "3D Reconstruction",
        "Malware Detection", "Entity Linking", "Summarization", "Visual Question Answering",
        "Continual Learning", "Jailbreak Defense", "Data Deduplication", "Protein Structure Prediction",
        "Multi-Agent Planning", "Compiler Optimization", "Log Parsing", "Query Optimization",
        "Object Detection", "Dialogue State Tracking", "Membership Inference", "Image Super-Resolution",
        "Citation Recommendation", "Program Repair", "Depth Estimation", "Graph Clustering",
    ),
    (
        "Low-Resource Languages", "Edge Devices", "Scientific Literature", "Open-World Settings",
        "Noisy Labels", "Multilingual Corpora", "Clinical Notes", "Streaming Data", "Heterogeneous Graphs",
        "Long Videos", "Embodied Environments", "Adversarial Settings", "Resource-Constrained Hardware",
        "Distribution Shift", "Web-Scale Data", "Multimodal Benchmarks", "Software Repositories",
    ),
    (
        "Expressive Power", "Sample Complexity", "Robustness", "Calibration", "Memorization",
        "Generalization", "Emergent Abilities", "Scaling Behavior", "Faithfulness", "Convergence",
        "Limitations", "Inductive Biases", "Energy Footprint", "Reproducibility",
    ),
)

MED = Field(
    "Medicine", 0.19, 0.14, 0.02, 0.95, 0.75,
    (
        _v("The Lancet", "journal", "Lancet"),
        _v("New England Journal of Medicine", "journal", "N Engl J Med", "NEJM"),
        _v("JAMA", "journal", "JAMA", "J Am Med Assoc"),
        _v("BMJ", "journal", "BMJ", "Br Med J"),
        _v("Nature Medicine", "journal", "Nat Med"),
        _v("PLoS ONE", "journal", "PLoS One"),
        _v("Scientific Reports", "journal", "Sci Rep"),
        _v("BMC Public Health", "journal", "BMC Public Health"),
        _v("Frontiers in Medicine", "journal", "Front Med"),
        _v("Journal of Clinical Oncology", "journal", "J Clin Oncol"),
        _v("Circulation", "journal", "Circulation"),
        _v("Cureus", "journal", "Cureus"),
        _v("medRxiv", "journal", "medRxiv"),
        _v("BMJ Open", "journal", "BMJ Open"),
        _v("Diabetes Care", "journal", "Diabetes Care"),
    ),
    (
        "{M} in Patients with {T}: {SUB}", "Association Between {M} and {T} in {S}",
        "Efficacy and Safety of {M} for {T}", "{A} {M} for the Management of {T}",
        "Long-Term Outcomes of {M} in {T}", "Risk Factors for {T} Among {S}",
        "{T} and {N} in {S}: {SUB}", "Effect of {M} on {T} in {S}: A Randomized Controlled Trial",
        "Prevalence of {T} in {S}", "Predicting {T} with {M}", "{M} Versus Standard Care in {T}",
    ),
    (
        "Semaglutide", "Immune Checkpoint Inhibitors", "Telemedicine Follow-Up", "Intermittent Fasting",
        "High-Intensity Interval Training", "Statin Therapy", "Early Mobilization", "SGLT2 Inhibitors",
        "Low-Dose Aspirin", "Cognitive Behavioral Therapy", "Deep Brain Stimulation", "mRNA Vaccination",
        "Robotic-Assisted Surgery", "Tranexamic Acid", "Vitamin D Supplementation", "Point-of-Care Ultrasound",
        "CAR-T Cell Therapy", "Prehabilitation", "Continuous Glucose Monitoring", "Electronic Health Record Alerts",
        "Machine Learning Risk Scores", "Antimicrobial Stewardship", "Fecal Microbiota Transplantation",
    ),
    (
        "Heart Failure with Preserved Ejection Fraction", "Type 2 Diabetes", "Sepsis", "Long COVID",
        "Chronic Kidney Disease", "Atrial Fibrillation", "Postpartum Depression", "Non-Small Cell Lung Cancer",
        "Hepatocellular Carcinoma", "Stroke Recovery", "Osteoarthritis", "Multiple Sclerosis",
        "Pediatric Asthma", "Hospital Readmission", "Delirium", "Obesity", "Colorectal Cancer",
        "Alzheimer's Disease", "Tuberculosis", "Surgical Site Infection", "Preterm Birth",
        "Antimicrobial Resistance", "Frailty", "Acute Kidney Injury", "Migraine",
    ),
    (
        "Older Adults", "Primary Care", "Intensive Care Units", "Low- and Middle-Income Countries",
        "Rural Hospitals", "Adolescents", "Pregnant Women", "a National Cohort", "Veterans",
        "Emergency Departments", "Kidney Transplant Recipients", "Health Care Workers",
    ),
    ("Cost-Effectiveness", "Safety", "Burden", "Prognostic Value", "Trajectories"),
)

BIO = Field(
    "Biology", 0.10, 0.16, 0.25, 0.92, 0.55,
    (
        _v("Nature", "journal", "Nature"),
        _v("Cell", "journal", "Cell"),
        _v("Science", "journal", "Science"),
        _v("eLife", "journal", "eLife"),
        _v("Nature Communications", "journal", "Nat Commun"),
        _v("bioRxiv", "journal", "bioRxiv"),
        _v("Proceedings of the National Academy of Sciences of the United States of America", "journal", "PNAS", "Proc Natl Acad Sci U S A"),
        _v("Molecular Biology and Evolution", "journal", "Mol Biol Evol"),
        _v("Nucleic Acids Research", "journal", "Nucleic Acids Res"),
        _v("Current Biology", "journal", "Curr Biol"),
        _v("PLoS Biology", "journal", "PLoS Biol"),
    ),
    (
        "{M} Reveals {P} of {T}", "{A} {M} of {T} in {S}", "The Role of {T} in {N}",
        "{T} Drives {N} in {S}", "Single-Cell Atlas of {T} in {S}", "{M} Identifies Regulators of {T}",
        "Evolutionary Origins of {T} in {S}", "Mechanisms of {T}: {SUB}",
    ),
    (
        "Single-Cell RNA Sequencing", "CRISPR Screening", "Cryo-Electron Microscopy", "Spatial Transcriptomics",
        "Long-Read Sequencing", "Live-Cell Imaging", "Comparative Genomics", "Proteomic Profiling",
        "Lineage Tracing", "Metagenomic Analysis", "Chromatin Accessibility Profiling", "Optogenetics",
        "Phylogenomic Analysis", "Deep Mutational Scanning", "Organoid Culture",
    ),
    (
        "Mitochondrial Dynamics", "Gut Microbiota", "Plant Immunity", "Circadian Rhythms", "Synaptic Plasticity",
        "Stem Cell Differentiation", "Horizontal Gene Transfer", "Protein Phase Separation", "Autophagy",
        "Neural Crest Migration", "Coral Bleaching", "Antibiotic Tolerance", "Bacteriophage Infection",
        "Chromosome Segregation", "Hybrid Speciation", "T Cell Exhaustion", "Root Development",
    ),
    (
        "Zebrafish", "Arabidopsis thaliana", "Drosophila", "Mouse Models", "Human Organoids",
        "Wild Populations", "Marine Bacteria", "Yeast", "Coral Reefs",
    ),
    ("Regulation", "Dynamics", "Diversity", "Architecture", "Evolution", "Heterogeneity"),
)

PHYS = Field(
    "Physics", 0.09, 0.38, 0.85, 0.7, 0.0,
    (
        _v("Physical Review Letters", "journal", "Phys Rev Lett", "PRL"),
        _v("Physical Review B", "journal", "Phys Rev B"),
        _v("Physical Review D", "journal", "Phys Rev D"),
        _v("Nature Physics", "journal", "Nat Phys"),
        _v("The Astrophysical Journal", "journal", "Astrophys J", "ApJ"),
        _v("Monthly Notices of the Royal Astronomical Society", "journal", "MNRAS", "Mon Not R Astron Soc"),
        _v("Journal of High Energy Physics", "journal", "J High Energy Phys", "JHEP"),
        _v("Physical Review X", "journal", "Phys Rev X"),
        _v("Quantum", "journal", "Quantum"),
        _v("Astronomy & Astrophysics", "journal", "Astron Astrophys", "A&A"),
    ),
    (
        "{P} of {T} from {M}", "{M} of {T} in {S}", "Constraints on {T} from {M}",
        "Observation of {T} in {S}", "{A} {M} for {T}", "{T} and {N}: {SUB}",
        "Probing {T} with {M}", "Emergent {T} in {S}",
    ),
    (
        "Tensor Network Simulations", "Lattice QCD Calculations", "Gravitational-Wave Observations",
        "Angle-Resolved Photoemission", "Variational Quantum Eigensolvers", "N-Body Simulations",
        "Neutron Scattering", "Effective Field Theory", "Quantum Error Correction", "Ultrafast Spectroscopy",
        "Cosmological Perturbation Theory", "Monte Carlo Renormalization", "Weak Lensing Surveys",
    ),
    (
        "Topological Superconductivity", "Dark Matter Halos", "Quantum Spin Liquids", "Neutrino Oscillations",
        "Black Hole Mergers", "Moire Superlattices", "Fast Radio Bursts", "Many-Body Localization",
        "Axion-Like Particles", "Exoplanet Atmospheres", "Hubble Tension", "Kitaev Materials",
        "Primordial Black Holes", "Quantum Scars", "Strange Metals", "Magnetar Flares",
    ),
    (
        "Twisted Bilayer Graphene", "the Early Universe", "Trapped-Ion Systems", "Cold Atom Arrays",
        "Neutron Stars", "Superconducting Qubits", "the Milky Way Halo", "Kagome Lattices",
    ),
    ("Signatures", "Thermodynamics", "Stability", "Universality", "Precision Measurements"),
)

CHEM = Field(
    "Chemistry", 0.07, 0.12, 0.06, 0.96, 0.1,
    (
        _v("Journal of the American Chemical Society", "journal", "J Am Chem Soc", "JACS"),
        _v("Angewandte Chemie", "journal", "Angew Chem Int Ed Engl"),
        _v("Chemical Science", "journal", "Chem Sci"),
        _v("ACS Catalysis", "journal", "ACS Catal"),
        _v("Nature Chemistry", "journal", "Nat Chem"),
        _v("Organic Letters", "journal", "Org Lett"),
        _v("The Journal of Physical Chemistry Letters", "journal", "J Phys Chem Lett"),
        _v("Molecules", "journal", "Molecules"),
    ),
    (
        "{A} {M} for {T}", "{M}-Enabled {T} under {S}", "Mechanistic Insights into {T} via {M}",
        "{T} Catalyzed by {M}", "Design of {M} for {T}", "{P} of {T}: {SUB}",
    ),
    (
        "Photoredox Catalysis", "Metal-Organic Frameworks", "Covalent Organic Frameworks", "Density Functional Theory",
        "Single-Atom Catalysts", "Electrochemical Synthesis", "Flow Chemistry", "Machine-Learned Potentials",
        "Nickel Catalysis", "Enzymatic Cascades", "Supramolecular Cages",
    ),
    (
        "C-H Activation", "CO2 Reduction", "Asymmetric Hydrogenation", "Nitrogen Fixation", "Water Oxidation",
        "Polymer Upcycling", "Cross-Coupling Reactions", "Hydrogen Evolution", "Lithium Extraction",
        "Chiral Recognition", "Olefin Metathesis",
    ),
    ("Ambient Conditions", "Aqueous Media", "Visible Light", "Continuous Flow", "High Pressure"),
    ("Selectivity", "Kinetics", "Stability", "Mechanism", "Scope"),
)

MAT = Field(
    "Materials Science", 0.05, 0.17, 0.3, 0.95, 0.0,
    (
        _v("Advanced Materials", "journal", "Adv Mater"),
        _v("Nature Materials", "journal", "Nat Mater"),
        _v("ACS Nano", "journal", "ACS Nano"),
        _v("Acta Materialia", "journal", "Acta Mater"),
        _v("Advanced Energy Materials", "journal", "Adv Energy Mater"),
        _v("Journal of Materials Chemistry A", "journal", "J Mater Chem A"),
        _v("Nano Letters", "journal", "Nano Lett"),
    ),
    (
        "{A} {M} for {T}", "{M} Enables {T} in {S}", "Tailoring {P} of {S} via {M}",
        "{T} in {S}: {SUB}", "High-Throughput Screening of {S} for {T}",
    ),
    (
        "Additive Manufacturing", "Atomic Layer Deposition", "Grain Boundary Engineering", "Defect Passivation",
        "Machine-Learning-Guided Synthesis", "In Situ Transmission Electron Microscopy", "Interface Engineering",
        "Solvent Annealing", "High-Entropy Alloying",
    ),
    (
        "Solid-State Batteries", "Perovskite Solar Cells", "Thermoelectric Conversion", "Hydrogen Storage",
        "Flexible Electronics", "Corrosion Resistance", "Fatigue Crack Growth", "Dendrite Suppression",
        "Thermal Management",
    ),
    (
        "Two-Dimensional Materials", "High-Entropy Alloys", "Halide Perovskites", "Silicon Anodes",
        "Hydrogels", "Titanium Alloys", "MXenes",
    ),
    ("Mechanical Properties", "Durability", "Microstructure", "Ion Transport", "Phase Stability"),
)

ENG = Field(
    "Engineering", 0.07, 0.12, 0.2, 0.9, 0.0,
    (
        _v("IEEE Transactions on Industrial Electronics", "journal", "IEEE Trans Ind Electron"),
        _v("IEEE Transactions on Power Systems", "journal", "IEEE Trans Power Syst"),
        _v("IEEE Robotics and Automation Letters", "journal", "IEEE Robot Autom Lett", "RA-L"),
        _v("IEEE International Conference on Robotics and Automation", "conference", "ICRA"),
        _v("Energy", "journal", "Energy"),
        _v("Sensors", "journal", "Sensors"),
        _v("Applied Energy", "journal", "Appl Energy"),
        _v("IEEE Transactions on Wireless Communications", "journal", "IEEE Trans Wirel Commun"),
    ),
    (
        "{A} {M} for {T}", "{M}-Based {T} in {S}", "Design and Implementation of {M} for {T}",
        "{T} Using {M}: {SUB}", "{P} Analysis of {M} in {S}",
    ),
    (
        "Model Predictive Control", "Digital Twins", "Deep Reinforcement Learning", "Kalman Filtering",
        "Finite Element Modeling", "Reconfigurable Intelligent Surfaces", "Sliding Mode Control",
        "Physics-Informed Neural Networks", "Edge Computing", "Topology Optimization",
    ),
    (
        "Battery State-of-Health Estimation", "Microgrid Scheduling", "Fault Diagnosis", "Path Planning",
        "Structural Health Monitoring", "Beamforming", "Traffic Signal Control", "Vibration Suppression",
        "Wind Power Forecasting", "Legged Locomotion",
    ),
    (
        "Electric Vehicles", "Offshore Wind Farms", "6G Networks", "Smart Grids", "Unmanned Aerial Vehicles",
        "Urban Water Networks", "Bridges",
    ),
    ("Reliability", "Performance", "Stability", "Efficiency", "Sensitivity"),
)

MATH = Field(
    "Mathematics", 0.04, 0.18, 0.9, 0.5, 0.0,
    (
        _v("Annals of Mathematics", "journal", "Ann Math"),
        _v("Inventiones Mathematicae", "journal", "Invent Math"),
        _v("Journal of the American Mathematical Society", "journal", "J Am Math Soc"),
        _v("Advances in Mathematics", "journal", "Adv Math"),
        _v("SIAM Journal on Numerical Analysis", "journal", "SIAM J Numer Anal"),
        _v("Combinatorica", "journal", "Combinatorica"),
    ),
    (
        "On the {P} of {T}", "{A} Bounds for {T}", "{T} and {N}", "A Note on {T}",
        "{M} for {T}", "{P} of {T} via {M}", "{T} in {S}",
    ),
    (
        "Spectral Methods", "Probabilistic Methods", "Discontinuous Galerkin Methods", "Entropy Methods",
        "Hodge Theory", "Optimal Transport", "Stochastic Calculus", "Additive Combinatorics",
    ),
    (
        "Ramsey Numbers", "Random Matrices", "Elliptic Curves", "Navier-Stokes Equations", "Graph Colorings",
        "Mean Curvature Flow", "Schur Positivity", "Hyperbolic Groups", "Sphere Packings",
        "Mixing Times", "Modular Forms",
    ),
    ("Finite Fields", "Riemannian Manifolds", "Banach Spaces", "Sparse Graphs", "Higher Dimensions"),
    ("Rigidity", "Regularity", "Asymptotics", "Uniqueness", "Existence", "Concentration"),
)

ECON = Field(
    "Economics", 0.04, 0.07, 0.15, 0.8, 0.0,
    (
        _v("American Economic Review", "journal", "Am Econ Rev", "AER"),
        _v("The Quarterly Journal of Economics", "journal", "Q J Econ"),
        _v("Journal of Political Economy", "journal", "J Polit Econ"),
        _v("Econometrica", "journal", "Econometrica"),
        _v("Social Science Research Network", "journal", "SSRN"),
        _v("Energy Economics", "journal", "Energy Econ"),
    ),
    (
        "{T} and {N}: Evidence from {S}", "The Effect of {M} on {T}", "{M} and {T} in {S}",
        "Who Benefits from {M}? {SUB}", "{T}, {N}, and {M}",
    ),
    (
        "Minimum Wage Increases", "Carbon Pricing", "Remote Work", "Cash Transfers", "Monetary Tightening",
        "Industrial Policy", "Algorithmic Pricing", "Trade Tariffs", "Housing Vouchers",
    ),
    (
        "Labor Market Outcomes", "Household Debt", "Firm Productivity", "Income Inequality", "Inflation Expectations",
        "Regional Migration", "Startup Formation", "Supply Chain Resilience",
    ),
    ("Administrative Data", "Developing Countries", "the Euro Area", "US Counties", "China", "India"),
    ("Welfare Effects", "Incidence", "Distributional Consequences"),
)

PSY = Field(
    "Psychology", 0.04, 0.07, 0.05, 0.9, 0.4,
    (
        _v("Psychological Science", "journal", "Psychol Sci"),
        _v("Journal of Personality and Social Psychology", "journal", "J Pers Soc Psychol"),
        _v("Frontiers in Psychology", "journal", "Front Psychol"),
        _v("Nature Human Behaviour", "journal", "Nat Hum Behav"),
        _v("Cognition", "journal", "Cognition"),
    ),
    (
        "{M} and {T} in {S}", "The Role of {M} in {T}", "{T} Among {S}: {SUB}",
        "Does {M} Reduce {T}?", "{P} of {T} in {S}",
    ),
    (
        "Mindfulness Training", "Social Media Use", "Parental Warmth", "Sleep Deprivation", "Growth Mindset Interventions",
        "Loneliness", "Working Memory Training", "Peer Feedback",
    ),
    (
        "Academic Burnout", "Depressive Symptoms", "Risk Taking", "Moral Judgment", "Attention Control",
        "Emotion Regulation", "Procrastination", "Implicit Bias",
    ),
    ("Adolescents", "University Students", "Older Adults", "Online Samples", "Cross-Cultural Samples"),
    ("Longitudinal Associations", "Measurement Invariance", "Predictors"),
)

ENV = Field(
    "Environmental Science", 0.03, 0.09, 0.05, 0.93, 0.0,
    (
        _v("Nature Climate Change", "journal", "Nat Clim Chang"),
        _v("Environmental Science & Technology", "journal", "Environ Sci Technol"),
        _v("Science of The Total Environment", "journal", "Sci Total Environ"),
        _v("Global Change Biology", "journal", "Glob Chang Biol"),
        _v("Water Research", "journal", "Water Res"),
    ),
    (
        "{M} of {T} in {S}", "{T} under {N}: {SUB}", "Drivers of {T} in {S}",
        "{A} {M} for {T}", "Projected {T} in {S}",
    ),
    (
        "Satellite Remote Sensing", "Life Cycle Assessment", "Earth System Modeling", "Eddy Covariance Measurements",
        "Environmental DNA Sampling", "Species Distribution Modeling",
    ),
    (
        "Microplastic Pollution", "Soil Carbon Loss", "Urban Heat Islands", "Wildfire Emissions", "Glacier Retreat",
        "Groundwater Depletion", "Nitrogen Runoff", "Marine Heatwaves",
    ),
    ("the Arctic", "the Amazon Basin", "Coastal Wetlands", "Megacities", "Alpine Catchments", "the Sahel"),
    ("Trends", "Sensitivity", "Uncertainty"),
)

SOC = Field(
    "Sociology", 0.02, 0.04, 0.02, 0.75, 0.0,
    (
        _v("American Sociological Review", "journal", "Am Sociol Rev"),
        _v("Social Forces", "journal", "Soc Forces"),
        _v("Journal of Ethnic and Migration Studies", "journal", "J Ethn Migr Stud"),
    ),
    (
        "{T} and {M} in {S}", "Rethinking {T}: {SUB}", "{M} in the Age of {N}", "Negotiating {T} in {S}",
    ),
    ("Digital Platforms", "Gig Work", "Religious Communities", "Civic Participation", "Neighborhood Change"),
    ("Precarity", "Belonging", "Intergenerational Mobility", "Gendered Care Work", "Political Polarization"),
    ("Urban Europe", "Rural China", "Latin America", "Post-Industrial Towns", "Migrant Families"),
    ("Politics", "Meaning", "Boundaries"),
)

FIELDS: tuple[Field, ...] = (CS, MED, BIO, PHYS, CHEM, MAT, ENG, MATH, ECON, PSY, ENV, SOC)

# A preprint server venue that papers of arXiv-heavy fields often carry (S2 names it "arXiv.org").
ARXIV_VENUE = _v("arXiv.org", "journal", "ArXiv")

# Titles that real catalogues repeat verbatim across different works.
GENERIC_TITLES: tuple[str, ...] = (
    "Editorial", "Preface", "Introduction", "Correction", "Book Review", "Erratum", "Letter to the Editor",
    "Reply to the Comment", "Front Matter", "In Memoriam",
)

# Fragments with markup, as they occur in real S2 titles (MathML from publisher feeds; HTML tags).
MATHML_SNIPPETS: tuple[str, ...] = (
    '<mml:math xmlns:mml="http://www.w3.org/1998/Math/MathML"><mml:msub><mml:mi>H</mml:mi><mml:mi>∞</mml:mi></mml:msub></mml:math>',
    '<mml:math xmlns:mml="http://www.w3.org/1998/Math/MathML"><mml:mi>O</mml:mi><mml:mo>(</mml:mo><mml:mi>n</mml:mi><mml:mo>log</mml:mo><mml:mi>n</mml:mi><mml:mo>)</mml:mo></mml:math>',
    '<mml:math xmlns:mml="http://www.w3.org/1998/Math/MathML"><mml:msup><mml:mi>L</mml:mi><mml:mn>2</mml:mn></mml:msup></mml:math>',
    '<mml:math xmlns:mml="http://www.w3.org/1998/Math/MathML"><mml:mi>k</mml:mi></mml:math>-Uniform',
    '<mml:math xmlns:mml="http://www.w3.org/1998/Math/MathML"><mml:mrow><mml:mi>S</mml:mi><mml:mi>U</mml:mi><mml:mo>(</mml:mo><mml:mn>3</mml:mn><mml:mo>)</mml:mo></mml:mrow></mml:math>',
)
HTML_SNIPPETS: tuple[str, ...] = (
    "<i>In Vivo</i>", "CO<sub>2</sub>", "<i>Escherichia coli</i>", "Ca<sup>2+</sup>", "<b>Part I</b>",
    "<scp>Mn</scp>", "<i>Drosophila</i>", "H<sub>2</sub>O<sub>2</sub>",
)

# Acronym syllables: invented method names like "GRAFT" or "MoLoRA".
ACRONYM_PARTS: tuple[str, ...] = (
    "Lo", "Ra", "Gra", "Flow", "Mo", "Dif", "Tok", "Sea", "Ve", "Lin", "Hy", "Per", "Spar", "Cor",
    "Mix", "Quant", "Att", "Re", "Net", "Gen", "Ro", "Pro", "Syn", "Mem", "Ada", "Pi", "Ze", "Tri",
    "Vox", "Kan", "Orca", "Lu", "Nex", "Sol", "Tra", "Fu", "Ca", "Dex",
)

FIRST_NAMES: tuple[str, ...] = (
    "Wei", "Jing", "Yang", "Hao", "Xin", "Li", "Yu", "Jun", "Min", "Chen", "Zhi", "Lei", "Yifan", "Ziyi",
    "Haoran", "Mengyu", "Qian", "Ruoxi", "Tianyu", "Shuang", "Yuki", "Haruto", "Sakura", "Kenji", "Aiko",
    "Ji-woo", "Seo-yeon", "Min-jun", "Hyun", "Priya", "Rahul", "Ananya", "Arjun", "Sneha", "Vikram",
    "Aditi", "Rohan", "Kavya", "Siddharth", "Lakshmi", "Mohammed", "Fatima", "Ahmed", "Layla", "Omar",
    "Yasmin", "Hassan", "Zainab", "Mehmet", "Elif", "Emre", "Ayse", "Maria", "Jose", "Ana", "Carlos",
    "Lucia", "Javier", "Sofia", "Diego", "Camila", "Mateo", "Valentina", "Joao", "Beatriz", "Pedro",
    "Giulia", "Marco", "Francesca", "Luca", "Chiara", "Pierre", "Camille", "Julien", "Claire", "Antoine",
    "Lena", "Jonas", "Anna", "Felix", "Hannah", "Lukas", "Sophie", "Maximilian", "Ingrid", "Lars", "Freja",
    "Mikkel", "Olga", "Dmitri", "Anastasia", "Ivan", "Katarzyna", "Piotr", "Agnieszka", "Tomas", "Eva",
    "James", "Mary", "Michael", "Sarah", "David", "Emily", "Daniel", "Jessica", "Matthew", "Laura",
    "Andrew", "Rachel", "Christopher", "Megan", "Thomas", "Olivia", "Benjamin", "Grace", "Samuel",
    "Chloe", "Nathan", "Abigail", "Kwame", "Amara", "Chinedu", "Ngozi", "Tunde", "Aisha", "Thabo",
    "Nomvula", "Kofi", "Esi", "Minh", "Linh", "Thanh", "Nguyen", "Somchai", "Ploy", "Rizal", "Dewi",
    "Arash", "Niloofar", "Reza", "Shirin", "Avi", "Noa", "Yosef", "Tamar", "Erik", "Astrid",
)

LAST_NAMES: tuple[str, ...] = (
    "Wang", "Li", "Zhang", "Liu", "Chen", "Yang", "Huang", "Zhao", "Wu", "Zhou", "Xu", "Sun", "Ma", "Zhu",
    "Hu", "Guo", "He", "Lin", "Gao", "Luo", "Zheng", "Liang", "Xie", "Tang", "Han", "Feng", "Deng", "Cao",
    "Peng", "Zeng", "Tanaka", "Suzuki", "Takahashi", "Watanabe", "Ito", "Nakamura", "Kobayashi", "Sato",
    "Kim", "Lee", "Park", "Choi", "Jung", "Kang", "Cho", "Yoon", "Sharma", "Gupta", "Singh", "Kumar",
    "Patel", "Reddy", "Iyer", "Nair", "Mehta", "Chatterjee", "Banerjee", "Rao", "Das", "Joshi", "Khan",
    "Hussain", "Rahman", "Ali", "Haddad", "Nasser", "Farouk", "Yilmaz", "Demir", "Kaya", "Sahin",
    "Garcia", "Rodriguez", "Martinez", "Hernandez", "Lopez", "Gonzalez", "Perez", "Sanchez", "Ramirez",
    "Torres", "Flores", "Silva", "Santos", "Oliveira", "Souza", "Costa", "Pereira", "Rossi", "Russo",
    "Ferrari", "Esposito", "Bianchi", "Romano", "Colombo", "Ricci", "Martin", "Bernard", "Dubois",
    "Thomas", "Robert", "Richard", "Petit", "Durand", "Leroy", "Moreau", "Muller", "Schmidt", "Schneider",
    "Fischer", "Weber", "Meyer", "Wagner", "Becker", "Schulz", "Hoffmann", "Koch", "Richter", "Klein",
    "Jansen", "de Vries", "van Dijk", "Bakker", "Visser", "Smit", "Nielsen", "Hansen", "Andersen",
    "Johansson", "Larsson", "Eriksson", "Lindberg", "Virtanen", "Korhonen", "Nowak", "Kowalski",
    "Wisniewski", "Novak", "Horvath", "Ivanov", "Smirnov", "Popov", "Petrov", "Kuznetsov", "Volkov",
    "Smith", "Johnson", "Williams", "Brown", "Jones", "Miller", "Davis", "Wilson", "Anderson", "Taylor",
    "Moore", "Jackson", "White", "Harris", "Clark", "Lewis", "Walker", "Hall", "Young", "Allen", "King",
    "Wright", "Scott", "Green", "Baker", "Adams", "Nelson", "Carter", "Mitchell", "Roberts", "Turner",
    "Phillips", "Campbell", "Parker", "Evans", "Edwards", "Collins", "Stewart", "Murphy", "Cook", "Rogers",
    "O'Brien", "Murray", "Kelly", "Walsh", "Okafor", "Adeyemi", "Mensah", "Nkosi", "Mwangi", "Okonkwo",
    "Nguyen", "Tran", "Pham", "Le", "Hoang", "Vu", "Santoso", "Wijaya", "Tan", "Lim", "Ong", "Goh",
    "Cohen", "Levi", "Mizrahi", "Friedman", "Hosseini", "Ahmadi", "Karimi", "Mohammadi", "Rezaei",
    "Papadopoulos", "Georgiou", "Dimitriou", "Ferreira", "Almeida", "Costa Pereira", "Bergstrom",
)

INTENTS: tuple[str, ...] = ("background", "methodology", "result")

# Citation contexts: sentences a citing paper might contain around the marker.
CONTEXT_TEMPLATES: tuple[str, ...] = (
    "Prior work on {T} has relied on {M} {c}.",
    "{M} was recently applied to {T} {c}, with encouraging results.",
    "Following {c}, we adopt {M} as our baseline for {T}.",
    "These findings are consistent with earlier reports on {T} in {S} {c}.",
    "We use the evaluation protocol of {c} for {T}.",
    "Several studies have examined the {P} of {M} {c}.",
    "In contrast to {c}, our approach does not require {M}.",
    "A comprehensive overview of {T} can be found in {c}.",
    "Similar observations were made for {N} {c}.",
    "Our implementation builds on the open-source code released with {c}.",
    "The dataset was collected following the procedure described in {c}.",
    "{M} achieves strong performance on {T} {c}, but its {P} remains poorly understood.",
)

COUNTRIES: tuple[str, ...] = (
    "China", "India", "the United States", "Brazil", "Nigeria", "Germany", "Japan", "South Korea", "Kenya",
    "Mexico", "Indonesia", "Pakistan", "Bangladesh", "Ethiopia", "Vietnam", "Turkey", "Iran", "France",
    "the United Kingdom", "Italy", "Spain", "Poland", "Canada", "Australia", "South Africa", "Egypt",
    "Saudi Arabia", "Thailand", "Colombia", "Argentina", "Peru", "Chile", "Sweden", "Norway", "Denmark",
    "the Netherlands", "Ghana", "Uganda", "Nepal", "Sri Lanka", "Malaysia", "the Philippines", "Morocco",
)

# Endings that widen a low-entropy template (placeholders as above, plus {C} country, {K} a count,
# {Y} a study period). A leading "^" marks a prefix instead of an ending.
SUFFIXES: dict[str, tuple[str, ...]] = {
    "Computer Science": ("^{X}: ", " in {S}", ": {SUB}", " under {S}", "^{X}: ", " with {A} Guarantees"),
    "Medicine": (" in {C}", ": {SUB}", ": A Cohort Study of {K} Patients", ": A Multicenter Study in {C}, {Y}", " among {S} in {C}", ": A Registry Analysis of {K} Cases"),
    "Biology": (" in {S}", ": {SUB}", ": Insights from {M}", " across {K} Samples", ": A Field Survey in {C}, {Y}"),
    "Physics": ("^{X}: ", " in {S}", ": {SUB}", " with {M}", ": Results from {K} Hours of Data"),
    "Chemistry": (" under {S}", ": {SUB}", " on a {K}-mg Scale", " via {M}", ": {A} Protocols"),
    "Materials Science": (" in {S}", ": {SUB}", " over {K} Cycles", " via {M}", ": {A} Processing Routes"),
    "Engineering": ("^{X}: ", " in {S}", ": {SUB}", " with {A} {M}", ": Field Tests over {K} Hours"),
    "Mathematics": (" in {S}", " of Order {K}", ": {SUB}", " via {M}", " with {P} Estimates"),
    "Economics": (": Evidence from {C}", " in {C}, {Y}", ": {SUB}", ": Evidence from {K} Firms", " in {S}"),
    "Psychology": (" in {C}", ": {SUB}", ": A Study of {K} Participants", " in {S}, {Y}"),
    "Environmental Science": (" in {S}", ", {Y}", ": {SUB}", " across {K} Sites", " in {C}"),
    "Sociology": (" in {C}", ", {Y}", ": {SUB}", ": Interviews with {K} Residents", " in {S}"),
}
