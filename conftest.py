"""pytest configuration shared by every test under tb/ and tests/."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
