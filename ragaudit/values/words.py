"""Number words and units in English, German, French and Spanish: what turns a number into
a quantity ('five seconds', 'fünf Sekunden', 'trois jours', 'cinco minutos', '2,5 %').

Data only, built by functions (no work at import time beyond literals). The English tables
under `ENGLISH_*` and the unit factors are what mutate's two-form values compute with
(mutation.value_forms); the four-language tables are what `shapes.find_values` reads."""

from __future__ import annotations

from fractions import Fraction
from functools import cache

ENGLISH_ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
"""0..19 in words, indexed by value (mutate rewrites a number in words with it)."""
ENGLISH_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
"""20, 30 .. 90: ENGLISH_TENS[tens - 2]."""

SECONDS = {
    "ms": Fraction(1, 1000), "msec": Fraction(1, 1000), "millisecond": Fraction(1, 1000),
    "s": 1, "sec": 1, "second": 1, "min": 60, "minute": 60, "h": 3600, "hr": 3600,
    "hour": 3600, "d": 86400, "day": 86400, "week": 604800,
}  # fmt: skip
"""A time unit (lower case, singular) -> seconds."""
BYTES = {"byte": 0, "kb": 1, "kilobyte": 1, "mb": 2, "megabyte": 2, "gb": 3, "gigabyte": 3,
         "tb": 4, "terabyte": 4}  # fmt: skip
"""Powers of 1000 or 1024, as the document's own pair shows."""
BINARY = {"kib": 1, "kibibyte": 1, "mib": 2, "mebibyte": 2, "gib": 3, "gibibyte": 3,
          "tib": 4, "tebibyte": 4}  # fmt: skip
"""Powers of 1024."""
PERCENT = {"%", "percent", "per cent", "pct"}
WORD_UNITS = {"millisecond", "second", "minute", "hour", "day", "week", "byte", "kilobyte",
              "megabyte", "gigabyte", "terabyte", "kibibyte", "mebibyte", "gibibyte",
              "tebibyte"}  # fmt: skip
"""Units written as words, singular for one ('1 minute') and plural otherwise."""

_GERMAN_ONES = ("- eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf dreizehn "
                "vierzehn fünfzehn sechzehn siebzehn achtzehn neunzehn").split()  # fmt: skip
_GERMAN_TENS = "zwanzig dreißig vierzig fünfzig sechzig siebzig achtzig neunzig".split()
_FRENCH_ONES = ("zéro un deux trois quatre cinq six sept huit neuf dix onze douze treize "
                "quatorze quinze seize dix-sept dix-huit dix-neuf").split()  # fmt: skip
_FRENCH_TENS = "vingt trente quarante cinquante soixante".split()
_SPANISH_ONES = ("cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce trece "
                 "catorce quince dieciséis diecisiete dieciocho diecinueve").split()  # fmt: skip
_SPANISH_TWENTIES = ("veinte veintiuno veintidós veintitrés veinticuatro veinticinco "
                     "veintiséis veintisiete veintiocho veintinueve").split()  # fmt: skip
_SPANISH_TENS = "treinta cuarenta cincuenta sesenta setenta ochenta noventa".split()
_ARTICLES = {"un", "une", "uno", "una", "-"}
"""Words that are a number and an article at once, never read as a number on their own;
German 'null' ('-', 0) is left out too: English 'null characters' is no count."""


@cache
def number_words() -> dict[str, dict[str, int]]:
    """language -> {number word, lower case -> its value}, 0..99 and the round hundreds and
    thousands, compounds as each language writes them ('twenty-one', 'einundzwanzig',
    'vingt et un', 'soixante-dix', 'treinta y dos')."""
    english = {w: i for i, w in enumerate(ENGLISH_ONES)}
    german = {w: i for i, w in enumerate(_GERMAN_ONES)}
    french = {w: i for i, w in enumerate(_FRENCH_ONES)}
    spanish = {w: i for i, w in enumerate(_SPANISH_ONES)}
    spanish |= {w: 20 + i for i, w in enumerate(_SPANISH_TWENTIES)}
    for t, ten in enumerate(ENGLISH_TENS):
        english[ten] = 20 + 10 * t
        for one in range(1, 10):
            english[f"{ten}-{ENGLISH_ONES[one]}"] = english[f"{ten} {ENGLISH_ONES[one]}"] = (
                20 + 10 * t + one
            )
    for t, ten in enumerate(_GERMAN_TENS):
        german[ten] = 20 + 10 * t
        for one, unit in enumerate(("ein", *_GERMAN_ONES[2:10]), start=1):
            german[f"{unit}und{ten}"] = 20 + 10 * t + one
    for t, ten in enumerate(_SPANISH_TENS):
        spanish[ten] = 30 + 10 * t
        for one in range(1, 10):
            spanish[f"{ten} y {_SPANISH_ONES[one]}"] = 30 + 10 * t + one
    french |= _french_tens()
    english |= {"hundred": 100, "a hundred": 100, "thousand": 1000, "a thousand": 1000}
    german |= {"hundert": 100, "einhundert": 100, "tausend": 1000, "eintausend": 1000}
    french |= {"cent": 100, "mille": 1000}
    spanish |= {"cien": 100, "mil": 1000}
    tables = {"en": english, "de": german, "fr": french, "es": spanish}
    return {lang: {w: v for w, v in t.items() if w not in _ARTICLES} for lang, t in tables.items()}


def _french_tens() -> dict[str, int]:
    """20..99 in French: 'vingt et un', 'vingt-deux', 'soixante-dix', 'quatre-vingt-dix'."""
    found: dict[str, int] = {}
    for t, ten in enumerate(_FRENCH_TENS):
        value = 20 + 10 * t
        found[ten] = value
        found[f"{ten} et un"] = found[f"{ten}-et-un"] = value + 1
        for one in range(2, 10):
            found[f"{ten}-{_FRENCH_ONES[one]}"] = value + one
    found["soixante et onze"] = found["soixante-et-onze"] = 71
    for one in range(10, 20):
        found.setdefault(f"soixante-{_FRENCH_ONES[one]}", 60 + one)
        found[f"quatre-vingt-{_FRENCH_ONES[one]}"] = 80 + one
    found["quatre-vingts"] = 80
    for one in range(1, 10):
        found[f"quatre-vingt-{_FRENCH_ONES[one]}"] = 80 + one
    return found


UNITS: dict[str, tuple[str, ...]] = {
    "duration": (
        # English
        "ms", "msec", "millisecond", "milliseconds", "s", "sec", "secs", "second", "seconds",
        "min", "mins", "minute", "minutes", "h", "hr", "hrs", "hour", "hours", "d", "day",
        "days", "week", "weeks", "month", "months", "year", "years",
        # German
        "Millisekunde", "Millisekunden", "Sekunde", "Sekunden", "Sek.", "Minute", "Minuten",
        "Min.", "Stunde", "Stunden", "Std.", "Tag", "Tage", "Tagen", "Woche", "Wochen",
        "Monat", "Monate", "Monaten", "Jahr", "Jahre", "Jahren",
        # French
        "milliseconde", "millisecondes", "seconde", "secondes", "heure", "heures", "jour",
        "jours", "semaine", "semaines", "mois", "ans", "année", "années",
        # Spanish
        "milisegundo", "milisegundos", "segundo", "segundos", "minuto", "minutos", "hora",
        "horas", "día", "días", "semana", "semanas", "mes", "meses", "año", "años",
    ),
    "percent": ("%", "percent", "per cent", "pct", "Prozent", "pour cent", "pourcent",
                "por ciento"),
    "money": ("USD", "EUR", "GBP", "CHF", "JPY", "$", "€", "£", "¥", "dollar", "dollars",
              "euro", "euros", "Euro", "cent", "cents", "Cent", "centime", "centimes",
              "céntimo", "céntimos", "dólar", "dólares", "Franken", "franc", "francs"),
    "quantity": (
        # sizes, as written after a number ('1K', '10 MiB', '2 Ko')
        "B", "KB", "kB", "MB", "GB", "TB", "PB", "KiB", "MiB", "GiB", "TiB", "K", "M", "G",
        "byte", "bytes", "Byte", "Bytes", "bit", "bits", "Bit", "kilobyte", "kilobytes",
        "megabyte", "megabytes", "gigabyte", "gigabytes", "terabyte", "terabytes",
        "Kilobyte", "Megabyte", "Gigabyte", "octet", "octets", "Ko", "Mo", "Go", "To",
        "kbps", "Mbps", "Gbps", "KB/s", "MB/s", "bit/s",
        # physical
        "mm", "cm", "m", "km", "kg", "g", "mg", "ml", "l", "Hz", "kHz", "MHz", "GHz", "V",
        "mV", "W", "kW", "kWh", "mA", "°C", "°F", "°", "px", "pt", "dpi", "rpm",
        # counted things, by language
        "characters", "character", "chars", "lines", "line", "columns", "column", "rows",
        "entries", "items", "files", "objects", "commits", "retries", "attempts", "threads",
        "processes", "connections", "requests", "pages", "blocks", "sectors", "digits",
        "levels", "Zeichen", "Zeilen", "Zeile", "Spalten", "Spalte", "Einträge", "Eintrag",
        "Dateien", "Datei", "Versuche", "Blöcke", "Seiten", "Stellen", "Ziffern", "Prozesse",
        "Verbindungen", "caractères", "caractère", "lignes", "ligne", "colonnes", "colonne",
        "entrées", "fichiers", "tentatives", "blocs", "chiffres", "processus", "connexions",
        "caracteres", "carácter", "líneas", "línea", "columnas", "columna", "entradas",
        "archivos", "ficheros", "intentos", "bloques", "páginas", "dígitos", "procesos",
        "conexiones",
    ),
}  # fmt: skip
"""Kind of value -> the units that make a number that kind, as written (case kept)."""

MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
"""The English month names, January first (a shifted date is written with them)."""
MONTH_NAMES = {
    "en": MONTHS,
    "de": ("Januar", "Jänner", "Februar", "März", "April", "Mai", "Juni", "Juli", "August",
           "September", "Oktober", "November", "Dezember"),
    "fr": ("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août",
           "septembre", "octobre", "novembre", "décembre"),
    "es": ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
           "septiembre", "setiembre", "octubre", "noviembre", "diciembre"),
}  # fmt: skip
"""Month names by language, as written inside a sentence (French and Spanish in lower case;
a capital at a sentence start is read too). Never case-folded: 'may' is no month."""

VERSION_WORDS = ("version", "release", "versión", "versão")
"""Words a version number follows ('version 3.11')."""
DEFAULT_WORDS = ("default", "defaults")
"""English: the default's value follows a verb ('The default is', 'defaults to')."""
DEFAULT_WORDS_OTHER = ("standardwert", "vorgabewert", "voreinstellung",
                       "standardeinstellung", "vorgabe", "standardmäßig", "par défaut",
                       "por defecto", "predeterminado", "predeterminada")  # fmt: skip
"""German, French and Spanish: the default's value follows, a verb or colon optional
('Standardwert ist 5', 'Vorgabe: 5', 'par défaut : 5', 'por defecto es 5')."""
DEFAULT_AFTER_WORDS = ("by default", "par défaut", "por defecto", "standardmäßig")
"""Words a default's value stands before ('30 seconds by default')."""
ROLE_WORDS = (
    "written maintained developed created authored designed implemented contributed "
    "translated geschrieben entwickelt erstellt gepflegt betreut verfasst programmiert "
    "übersetzt écrit écrite écrits développé développée créé créée maintenu maintenue rédigé "
    "conçu traduit traduite escrito escrita desarrollado desarrollada creado creada mantenido "
    "mantenida diseñado traducido author authors maintainer maintainers autor autorin "
    "autoren autores betreuer auteur auteure auteurs mainteneur mantenedor"
).split()
"""Words of a role phrase, a name after them ('written by', 'Autor:', 'écrit par')."""

ATTACHED_UNITS = frozenset({"K", "M", "G"})
"""Units read only when they touch their number ('1K', '10M'): apart, they are letters."""
