{-# LANGUAGE OverloadedStrings #-}
-- | dbbench-client-haskell: dbbench's client protocol (docs/protocol.md, version 1) on stdin/stdout for
-- LMDB bound through the FFI, in streamly-lmdb's plain-IO variants, with the lmdb-c baseline's C loops
-- in the same process as variant "c". Logs go to stderr; stdout carries the protocol only.
module Main (main) where

import Control.Concurrent (getNumCapabilities, rtsSupportsBoundThreads)
import Control.Exception
import Control.Monad
import Data.Aeson
import qualified Data.Aeson.Key as K
import qualified Data.Aeson.KeyMap as KM
import Data.Aeson.Types (Pair)
import qualified Data.ByteString as B
import qualified Data.ByteString.Char8 as BC
import qualified Data.ByteString.Lazy as BL
import Data.Char (isDigit, isSpace)
import Data.IORef
import Data.Int (Int32)
import Data.List (intercalate)
import Data.Maybe (isJust)
import Data.Scientific (toBoundedInteger)
import qualified Data.Text as T
import qualified Data.Vector as V
import Data.Version (showVersion)
import Data.Word (Word64)
import Foreign (allocaArray, peekArray, pokeElemOff)
import System.Environment (getArgs)
import System.Exit (exitWith, ExitCode (..))
import System.IO
import System.Info (fullCompilerVersion)
import Text.Printf (printf)

import qualified Lmdb
import Persons (Persons (..), readPersons)
import Store

-- | The protocol versions this client speaks: 1, and 2 (capabilities store and keep_store: dbbench reads
-- the loaded store and every insert's fresh store back itself; the person file's salt needs nothing,
-- since names are read from the file).
protocols :: [Int]
protocols = [1, 2]

optionNames :: [T.Text]
optionNames = ["copy", "ffi", "map_size"]

-- | A request that cannot be served: answered with an error, the client stays usable.
newtype ReqError = ReqError String deriving Show
instance Exception ReqError

bad :: String -> IO a
bad = throwIO . ReqError

runtimeName :: IO String
runtimeName = do
  caps <- getNumCapabilities
  pure $ "GHC " ++ showVersion fullCompilerVersion ++
    if rtsSupportsBoundThreads then ", threaded RTS (-N" ++ show caps ++ ")" else ", non-threaded RTS"

hex :: Word64 -> String
hex = printf "%016x"

field :: T.Text -> Object -> Maybe Value
field k = KM.lookup (K.fromText k)

int :: Value -> Maybe Int
int (Number n) = toBoundedInteger n
int _ = Nothing

count :: String -> T.Text -> Object -> IO Int
count op f o = case field f o >>= int of
  Just v | v >= 0 -> pure v
  _ -> bad (op ++ ": " ++ T.unpack f ++ " must be a non-negative integer")

-- | A size option: bytes as a number, or a string such as "1GiB", "512MiB".
size :: Value -> Either String Int
size v = case v of
  Number _ | Just n <- int v, n > 0 -> Right n
  String s
    | (ds@(_ : _), unit) <- span isDigit (T.unpack (T.strip s))
    , Just m <- lookup (dropWhile isSpace unit) units
    , read ds * m > 0 -> Right (read ds * m)
  _ -> Left ("map_size: want bytes or a size such as \"1GiB\", got " ++ BC.unpack (BL.toStrict (encode v)))
  where units = [("", 1), ("B", 1), ("KiB", 2 ^ (10 :: Int)), ("MiB", 2 ^ (20 :: Int)), ("GiB", 2 ^ (30 :: Int)), ("TiB", 2 ^ (40 :: Int))]

data Server = Server { store :: IORef (Maybe Store), version :: IORef Int }

storeJson :: FilePath -> Value
storeJson dir = object ["kind" .= ("lmdb" :: String), "path" .= dir]

handle' :: Server -> String -> Object -> IO [Pair]
handle' srv op req = case op of
  "hello" -> hello srv req
  "ping" -> pure []
  "open" -> open srv req
  "close" -> do
    st <- atomicModifyIORef' (store srv) (\s -> (Nothing, s))
    mapM_ closeStore st
    pure []
  _ | op `elem` ["load", "scan", "lookup", "insert", "concurrent", "run", "drop"] -> do
        st <- readIORef (store srv)
        v <- readIORef (version srv)
        case st of
          Nothing -> bad (op ++ " before open")
          Just s -> work s v op req
    | otherwise -> bad ("unknown op " ++ show op)

hello :: Server -> Object -> IO [Pair]
hello srv req = do
  v <- case field "protocol" req >>= int of
    Just v | v `elem` protocols -> pure v
    Just v -> bad ("protocol " ++ show v ++ " requested; this client speaks 1 and 2")
    Nothing -> bad "hello: protocol must be an integer; this client speaks 1 and 2"
  writeIORef (version srv) v
  rt <- runtimeName
  (ver, _) <- Lmdb.version
  pure $ [ "protocol" .= v, "client" .= ("dbbench-client-haskell" :: String), "client_version" .= ("1.0.0" :: String)
       , "language" .= ("Haskell" :: String), "runtime" .= rt, "library" .= ("lmdb" :: String)
       , "library_version" .= ver, "workloads" .= (["scan", "lookup", "insert", "concurrent"] :: [String])
       , "options" .= optionNames ]
    ++ ["capabilities" .= (["keep_store", "store"] :: [String]) | v >= 2]

open :: Server -> Object -> IO [Pair]
open srv req = do
  cur <- readIORef (store srv)
  when (isJust cur) $ bad "open: already open"
  opts <- case field "options" req of
    Nothing -> pure KM.empty
    Just Null -> pure KM.empty
    Just (Object o) -> pure o
    Just _ -> bad "open: options must be an object"
  forM_ (KM.keys opts) $ \k -> unless (K.toText k `elem` optionNames) $
    bad ("open: unknown option " ++ show (K.toText k) ++ " (options: " ++ intercalate ", " (map T.unpack optionNames) ++ ")")
  ffi <- case field "ffi" opts of
    Nothing -> pure Unsafe
    Just (String "unsafe") -> pure Unsafe
    Just (String "safe") -> pure Safe
    Just (String "c") -> pure CLoops
    Just _ -> bad "open: ffi must be \"unsafe\", \"safe\" or \"c\""
  copy <- case field "copy" opts of
    Nothing -> pure False
    Just (Bool b) -> pure b
    Just (String "true") -> pure True -- client-test --client passes strings
    Just (String "false") -> pure False
    Just _ -> bad "open: copy must be true or false"
  mapSize <- case field "map_size" opts of
    Nothing -> pure (2 ^ (30 :: Int))
    Just v -> either bad pure (size v)
  path <- case field "dataset" req of
    Just (String s) -> pure (T.unpack s)
    _ -> bad "open: dataset must name the person file"
  temp <- case field "temp_dir" req of
    Just (String s) -> pure (T.unpack s)
    _ -> bad "open: temp_dir must be a directory"
  p <- readPersons path >>= either (\e -> bad ("person file " ++ path ++ ": " ++ e)) pure
  case field "size" req >>= int of
    Just n | n /= pCount p -> bad ("open: size " ++ show n ++ " but the person file holds " ++ show (pCount p) ++ " persons")
    _ -> pure ()
  st <- openStore p temp (Config ffi copy mapSize)
  writeIORef (store srv) (Just st)
  (ver, verStr) <- Lmdb.version
  rt <- runtimeName
  let calls = case ffi of
        Unsafe -> "GHC unsafe FFI calls (no RTS state saved; they block GC and other threads)"
        Safe -> "GHC safe FFI calls (the RTS releases its capability around each)"
        CLoops -> "the lmdb-c baseline's C loops (baselines/lmdbc/baseline.c), one safe call per request"
      values
        | ffi == CLoops = "read in place by C"
        | copy = "key and value copied into ByteStrings (packCStringLen), then folded"
        | otherwise = "read in place from the map (Ptr, length), no copy"
      info = object
        [ "variant" .= (case ffi of Unsafe -> "unsafe"; Safe -> "safe"; CLoops -> "c" :: String)
        , "calls" .= (calls :: String), "values" .= (values :: String), "copy" .= copy
        , "runtime" .= rt, "lmdb_version" .= ver
        , "lmdb_build" .= (verStr ++ " (lmdb-go's vendored sources, linked statically)")
        , "map_size" .= mapSize, "sync" .= False, "env_flags" .= ("MDB_NOSYNC|MDB_NOTLS" :: String)
        , "load_path" .= ("mdb_put with MDB_APPEND in email order, one write txn, unsafe FFI" :: String)
        , "scan_path" .= ("mdb_cursor_get MDB_FIRST/MDB_NEXT in one read txn" :: String)
        , "lookup_path" .= ("mdb_get, one spare read txn renewed before and reset after each lookup" :: String)
        , "insert_path" .= ("mdb_put per row in one write txn on the main (bound) thread" :: String)
        , "concurrency" .= (if ffi == CLoops then "the lmdb-c baseline's pthreads"
                            else if rtsSupportsBoundThreads then "one Haskell thread per reader (forkOn), in parallel on the RTS's capabilities"
                            else "one Haskell thread per reader, taking turns on one OS thread (non-threaded RTS)" :: String)
        ]
  pure ["info" .= info, "scans_in_key_order" .= True]

work :: Store -> Int -> String -> Object -> IO [Pair]
work s v op req = case op of
  "load" -> do
    t <- load s
    pure $ ["rows" .= tRows t, "elapsed_ns" .= tNs t] ++ ["store" .= storeJson (sDir s) | v >= 2]
  "drop" -> dropKept s >> pure []
  "scan" -> do
    n <- count op "rows" req
    t <- scan s n
    pure ["rows" .= tRows t, "checksum" .= hex (tSum t), "elapsed_ns" .= tNs t]
  "lookup" -> do
    let n = pCount (sP s)
        keyOf v = case int v of
          Just k | k >= 0 && k < n -> Just (fromIntegral k :: Int32)
          _ -> Nothing
    keys <- case field "keys" req of
      Just (Array a) | Just ks <- mapM keyOf (V.toList a) -> pure ks
      _ -> bad ("lookup: keys must be a list of dataset indices in [0, " ++ show n ++ ")")
    let k = length keys
    allocaArray (max 1 k) $ \idx -> allocaArray (max 1 k) $ \lat -> do
      zipWithM_ (pokeElemOff idx) [0 ..] keys
      (rows, acc) <- lookups s idx k lat
      ls <- peekArray k lat
      pure ["rows" .= rows, "checksum" .= hex acc, "latencies_ns" .= ls]
  "insert" -> do
    n <- count op "rows" req
    when (n > pCount (sP s)) $ bad ("insert: rows " ++ show n ++ " > " ++ show (pCount (sP s)) ++ " persons in the dataset")
    let keep = field "keep" req == Just (Bool True)
    (t, kept) <- insert s n keep
    pure $ ["rows" .= tRows t, "checksum" .= hex (tSum t), "elapsed_ns" .= tNs t] ++ ["store" .= storeJson d | Just d <- [kept]]
  "concurrent" -> do
    k <- count op "readers" req
    when (k < 1 || k > 100) $ bad "concurrent: readers must be 1 to 100 (the reader table holds 126)"
    n <- count op "rows" req
    (wall, ts) <- concurrent s k n
    pure [ "wall_ns" .= wall
         , "readers" .= [object ["rows" .= tRows t, "checksum" .= hex (tSum t), "elapsed_ns" .= tNs t] | t <- ts] ]
  _ -> bad ("run: this client has no adapter-specific workloads (asked for " ++ workload ++ ")")
  where
    workload = case field "workload" req of
      Just (String w) -> show w
      _ -> "none"

oneLine :: String -> String
oneLine = unwords . words

-- | The reply line to one request line.
answer :: Server -> B.ByteString -> IO Value
answer srv line = case decodeStrict' line of
  Nothing -> pure (errorReply 0 "request is not JSON")
  Just (Object o) -> case field "id" o >>= int of
    Nothing -> pure (errorReply 0 "request has no integer id")
    Just rid -> do
      let op = case field "op" o of
            Just (String t) -> T.unpack t
            _ -> ""
      r <- try (try (handle' srv op o))
      case r of
        Right (Right ps) -> pure (object (("id" .= rid) : ps))
        Right (Left (ReqError e)) -> pure (errorReply rid (oneLine e))
        Left e -> do
          let msg = oneLine (op ++ ": " ++ displayException (e :: SomeException))
          hPutStrLn stderr ("dbbench-client-haskell: " ++ msg)
          pure (errorReply rid msg)
  Just _ -> pure (errorReply 0 "request is not a JSON object")

errorReply :: Int -> String -> Value
errorReply rid e = object ["id" .= rid, "error" .= e]

main :: IO ()
main = do
  args <- getArgs
  unless (null args) $ do
    hPutStrLn stderr "usage: dbbench-client-haskell (speaks docs/protocol.md on stdin/stdout; choose the variant with the client options ffi: unsafe|safe|c and copy: true|false)"
    exitWith (ExitFailure 2)
  hSetBinaryMode stdin True
  hSetBinaryMode stdout True
  hSetBuffering stdout (BlockBuffering Nothing)
  srv <- Server <$> newIORef Nothing <*> newIORef 1
  let loop = do
        eof <- isEOF
        unless eof $ do
          line <- B.hGetLine stdin
          unless (B.all isSpace' line) $ do
            reply <- answer srv line
            BL.hPut stdout (encode reply)
            B.hPut stdout "\n"
            hFlush stdout
          loop
      isSpace' w = w == 32 || w == 9 || w == 13
  loop `finally` (readIORef (store srv) >>= mapM_ closeStore)
